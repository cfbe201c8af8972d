/// A typed message body that converts to and from the fields of a JSON object.
///
/// Decoding ignores fields it does not know (so newer peers can add fields) and throws `bad_request` naming the
/// first field that is missing or has the wrong type.
public protocol WireMessageBody: Sendable, Hashable {
    /// Reads the body from the fields of a message.
    init(json: JSONObject) throws(WireError)
    /// The body's fields.
    var json: JSONObject { get }
}

/// The typed body of a request for one operation.
public protocol WireRequestBody: WireMessageBody {
    /// The operation this body belongs to.
    static var operation: WireOperation { get }
}

extension WireRequestBody {
    /// A request envelope carrying this body.
    public func request(id: JSONValue) -> WireRequest {
        WireRequest(id: id, op: Self.operation.rawValue, fields: json)
    }
}
