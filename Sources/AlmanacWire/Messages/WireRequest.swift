/// A request envelope: `{"id": <any JSON value>, "op": "<operation>", …fields}`.
///
/// The `id` is echoed in the response so a client can match answers; it may be any JSON value and defaults to
/// `null`. The typed bodies for each operation are nested here (``Fetch``, ``Template``, …); ``WireCommand`` turns
/// an envelope into one of them.
public struct WireRequest: Sendable, Hashable {
    /// The client's identifier for this request, echoed in the response.
    public var id: JSONValue
    /// The operation name, e.g. `"fetch"`.
    public var op: String
    /// The request's other fields (without `id` and `op`).
    public var fields: JSONObject

    /// A request with an id, an operation name and fields.
    public init(id: JSONValue = .null, op: String, fields: JSONObject = [:]) {
        self.id = id
        self.op = op
        self.fields = fields
        self.fields["id"] = nil
        self.fields["op"] = nil
    }

    /// A request for a known operation.
    public init(id: JSONValue = .null, operation: WireOperation, fields: JSONObject = [:]) {
        self.init(id: id, op: operation.rawValue, fields: fields)
    }

    /// Reads a request from a JSON object.
    ///
    /// - Throws: `bad_request` when `op` is missing or not a string (the error's id is unknown to the caller, so it
    ///   reads ``id(inRequestObject:)`` to answer with the right id).
    public init(json: JSONObject) throws(WireError) {
        var fields = json
        let op = try json.requiredString("op")
        fields["id"] = nil
        fields["op"] = nil
        self.init(id: json["id"] ?? .null, op: op, fields: fields)
    }

    /// Reads a request from one line (without its newline).
    ///
    /// - Throws: `bad_request` for a line that is not JSON (with `offset` in the details), is not an object or has
    ///   no string `op`.
    public init(line: some Collection<UInt8>) throws(WireError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line)
        } catch {
            throw WireError(
                code: .badRequest,
                message: "request is not valid JSON: \(error.message)",
                details: error.details
            )
        }
        guard let object = value.objectValue else {
            throw .badRequest("request must be a JSON object, not \(value.typeName)")
        }
        try self.init(json: object)
    }

    /// The `id` of a request object, or `null` when the value is not an object; used to answer malformed requests.
    public static func id(inRequestObject value: JSONValue) -> JSONValue {
        value["id"] ?? .null
    }

    /// The known operation, if ``op`` names one.
    public var operation: WireOperation? { WireOperation(rawValue: op) }

    /// The envelope as a JSON object: `id`, `op`, then the fields.
    public var json: JSONObject {
        var object: JSONObject = ["id": id, "op": .string(op)]
        for (key, value) in fields { object[key] = value }
        return object
    }

    /// The request as one line of JSON ending in `\n`.
    public func encodedLine() -> [UInt8] {
        var bytes = JSONValue.object(json).encoded()
        bytes.append(0x0A)
        return bytes
    }
}
