import AlmanacWire

/// The typed body of one of the daemon's answers, as ``DaemonHandler/reply(to:author:)`` returns it: one case per kind
/// of body in AlmanacWire, which the client decodes with the same types.
public enum DaemonReply: WireReplyBody, Hashable {
    case hello(WireResponse.Hello)
    /// `ping` and `delete`: no fields.
    case empty
    case model(WireResponse.Model)
    case stores(WireResponse.Stores)
    /// `fetch` and `template`.
    case fetch(WireResponse.Fetch)
    case count(WireResponse.Count)
    /// `get` and `update`.
    case object(WireResponse.Get)
    case insert(WireResponse.Insert)
    case changes(WireResponse.Changes)
    case history(WireResponse.History)
    case subscribed(WireResponse.Subscribed)
    case stats(WireResponse.Stats)

    public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
        switch self {
        case .hello(let body): body.encodeMembers(into: &output)
        case .empty: break
        case .model(let body): body.encodeMembers(into: &output)
        case .stores(let body): body.encodeMembers(into: &output)
        case .fetch(let body): body.encodeMembers(into: &output)
        case .count(let body): body.encodeMembers(into: &output)
        case .object(let body): body.encodeMembers(into: &output)
        case .insert(let body): body.encodeMembers(into: &output)
        case .changes(let body): body.encodeMembers(into: &output)
        case .history(let body): body.encodeMembers(into: &output)
        case .subscribed(let body): body.encodeMembers(into: &output)
        case .stats(let body): body.encodeMembers(into: &output)
        }
    }

    public var encodedByteCountEstimate: Int {
        if case .fetch(let body) = self { return body.encodedByteCountEstimate }
        return 256
    }

    /// The body's fields as a client reads them: the reply line encoded as on the wire, then decoded.
    public var json: JSONObject {
        var line: [UInt8] = []
        WireResponse.encodeLine(id: .null, body: self, into: &line)
        guard case .response(let response)? = try? WireMessage(line: line.dropLast()),
            case .success(_, let body) = response
        else { preconditionFailure("the reply encoder wrote a line that is not a response") }
        return body
    }
}

/// A body the reply cache keeps: read back from and wrapped in a ``DaemonReply``.
protocol KeptReplyBody {
    init?(kept reply: DaemonReply)
    var kept: DaemonReply { get }
    /// Whether the body is a last known state, served while a shared store's server is unreachable.
    var isStale: Bool { get set }
}

extension WireResponse.Fetch: KeptReplyBody {
    init?(kept reply: DaemonReply) {
        guard case .fetch(let body) = reply else { return nil }
        self = body
    }

    var kept: DaemonReply { .fetch(self) }
}

extension WireResponse.Count: KeptReplyBody {
    init?(kept reply: DaemonReply) {
        guard case .count(let body) = reply else { return nil }
        self = body
    }

    var kept: DaemonReply { .count(self) }
}
