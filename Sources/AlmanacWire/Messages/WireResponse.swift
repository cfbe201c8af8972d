/// A response envelope: `{"id": …, "ok": true, …body}` or `{"id": …, "ok": false, "error": {…}}`.
///
/// The typed bodies of successful responses are nested here (``Hello``, ``Fetch``, …).
public enum WireResponse: Sendable, Hashable {
    /// A successful answer; `body` holds the operation's fields (`id` and `ok` in it are ignored).
    case success(id: JSONValue, body: JSONObject)
    /// A failed answer.
    case failure(id: JSONValue, error: WireError)

    /// The id of the request this answers (`null` when the request could not be read).
    public var id: JSONValue {
        switch self {
        case .success(let id, _), .failure(let id, _): return id
        }
    }

    /// The envelope as a JSON object: `id`, `ok`, then the body or `error`.
    public var json: JSONObject {
        switch self {
        case .success(let id, let body):
            var object: JSONObject = ["id": id, "ok": true]
            for (key, value) in body where key != "id" && key != "ok" { object[key] = value }
            return object
        case .failure(let id, let error):
            return ["id": id, "ok": false, "error": .object(error.json)]
        }
    }

    /// The response as one line of JSON ending in `\n`.
    public func encodedLine() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        encodeLine(into: &bytes)
        return bytes
    }

    /// Writes the response as one line of JSON ending in `\n`.
    public func encodeLine(into output: inout some JSONOutput) {
        switch self {
        case .success(let id, let body): Self.encodeLine(id: id, body: body, into: &output)
        case .failure(let id, let error): Self.encodeLine(id: id, error: error, into: &output)
        }
    }

    /// Writes a successful reply as one line: `{"id":…,"ok":true,…body}` and `\n`.
    ///
    /// The one encoder of replies: the daemon writes every answer with it (or with
    /// ``encodeLine(id:error:into:)``) straight into the buffer it hands to the socket.
    @inlinable
    public static func encodeLine<Output: JSONOutput>(
        id: JSONValue,
        body: some WireReplyBody,
        into output: inout Output
    ) {
        output.writeJSONText("{\"id\":")
        id.encode(into: &output)
        output.writeJSONText(",\"ok\":true")
        body.encodeMembers(into: &output)
        output.writeJSONText("}\n")
    }

    /// Writes a failed reply as one line: `{"id":…,"ok":false,"error":{…}}` and `\n`.
    @inlinable
    public static func encodeLine<Output: JSONOutput>(id: JSONValue, error: WireError, into output: inout Output) {
        output.writeJSONText("{\"id\":")
        id.encode(into: &output)
        output.writeJSONText(",\"ok\":false")
        output.writeJSONMember("error", .object(error.json))
        output.writeJSONText("}\n")
    }

    /// Reads a response object; `nil` when it has no Boolean `ok` (it is then an event or not a response).
    public init?(json: JSONObject) throws(WireError) {
        guard let ok = json["ok"]?.boolValue else { return nil }
        let id = json["id"] ?? .null
        if ok {
            var body = json
            body["id"] = nil
            body["ok"] = nil
            self = .success(id: id, body: body)
        } else {
            self = .failure(id: id, error: try WireError(json: try json.requiredObject("error")))
        }
    }

    /// The body of a success, or the error of a failure thrown.
    public func get() throws(WireError) -> JSONObject {
        switch self {
        case .success(_, let body): return body
        case .failure(_, let error): throw error
        }
    }
}
