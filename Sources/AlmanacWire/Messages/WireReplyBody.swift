/// The body of a successful reply, written straight into the reply line after its `id` and `ok`.
///
/// Every typed response body conforms (``WireResponse/Fetch``, ``WireResponse/Stats``, …), and so does
/// ``JSONObject`` for handlers that build their fields by hand. ``WireResponse/encodeLine(id:body:into:)`` writes
/// the envelope around it.
public protocol WireReplyBody: Sendable {
    /// Writes the body's members, each as `,"key":value` (they follow `{"id":…,"ok":true`).
    func encodeMembers<Output: JSONOutput>(into output: inout Output)

    /// About how many bytes the whole reply line takes, to size the output buffer once (default: 256).
    var encodedByteCountEstimate: Int { get }
}

extension WireReplyBody {
    public var encodedByteCountEstimate: Int { 256 }
}

extension WireReplyBody where Self: WireMessageBody {
    /// Writes the members of ``WireMessageBody/json``.
    @inlinable
    public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
        json.encodeMembers(into: &output)
    }
}

extension JSONObject: WireReplyBody {
    /// Writes the members in order, except `id` and `ok` (the envelope's own).
    @inlinable
    public func encodeMembers<Output: JSONOutput>(into output: inout Output) {
        for (key, value) in members where key != "id" && key != "ok" { output.writeJSONMember(key, value) }
    }
}
