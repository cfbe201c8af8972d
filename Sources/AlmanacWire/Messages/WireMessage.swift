/// One line a client reads from the server: a response or, after `subscribe`, an event.
public enum WireMessage: Sendable, Hashable {
    case response(WireResponse)
    case event(WireEvent)

    /// Reads one line (without its newline).
    ///
    /// - Throws: `parse_error` when the line is not JSON; `bad_request` when it is neither a response nor an event.
    public init(line: some Collection<UInt8>) throws(WireError) {
        let value = try JSONValue(parsing: line)
        guard let object = value.objectValue else {
            throw .badRequest("server sent \(value.typeName), not an object")
        }
        if let response = try WireResponse(json: object) {
            self = .response(response)
        } else if object["event"] != nil {
            self = .event(try WireEvent(json: object))
        } else {
            throw .badRequest("server sent an object that is neither a response nor an event")
        }
    }
}
