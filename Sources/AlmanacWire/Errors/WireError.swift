/// An error that travels on the Almanac wire: `{"code": "…", "message": "…"}` plus optional extra fields.
///
/// Shaped like NIO's `FileSystemError`: a stable ``code`` that scripts and tests match on, a human ``message`` that
/// says what went wrong and how to fix it, structured ``details`` that are sent next to the code (for example
/// `offset` for `parse_error`, `candidates` for `ambiguous_store`, `field` for `bad_request`), and an optional
/// underlying ``cause`` that stays in the process (it is never sent).
///
/// Equality compares the code only, so tests assert codes, not wording.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code, sent on the wire as a snake_case string.
    ///
    /// The known codes are static members; a code received from a newer daemon is kept as it is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code as sent on the wire, e.g. `"bad_request"`.
        public let rawValue: String

        /// A code from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        /// The request is not valid: a required field is missing or has the wrong type. `details.field` names it.
        public static let badRequest = Code(rawValue: "bad_request")
        /// A predicate, or a request line, could not be parsed. `details.offset` is the byte offset of the problem.
        public static let parseError = Code(rawValue: "parse_error")
        /// The model has no entity with the given name.
        public static let unknownEntity = Code(rawValue: "unknown_entity")
        /// The model has no fetch request template with the given name.
        public static let unknownTemplate = Code(rawValue: "unknown_template")
        /// A predicate refers to a `$VARIABLE` the request did not supply.
        public static let missingVariable = Code(rawValue: "missing_variable")
        /// The target store is read-only.
        public static let notWritable = Code(rawValue: "not_writable")
        /// More than one store could take an insert; `details.candidates` lists them, pick one with `store`.
        public static let ambiguousStore = Code(rawValue: "ambiguous_store")
        /// No object has the given URI.
        public static let notFound = Code(rawValue: "not_found")
        /// The request line is longer than the server's limit (`details.limit` `maxLineLength`), or a `fetch` or
        /// `template` would answer with more objects than the daemon sends in one reply (`details.limit`
        /// `maximumReplyObjects`, and `details.total`, the objects asked for: page with `limit` and `offset`);
        /// `details.value` is the limit's value. The connection stays usable.
        public static let tooLarge = Code(rawValue: "too_large")
        /// A write was refused because the file system holding its store is full or the disk quota is used up.
        /// Nothing of it was written and the store is intact; reads go on, and writes succeed again once space is
        /// freed (no restart). `details.store` names the store's file when known.
        public static let storageFull = Code(rawValue: "storage_full")
        /// Reading or writing a store's file failed in the operating system (`EIO`, a failing disk). The request
        /// had no effect; the daemon's log has the details. `details.store` names the store's file when known.
        public static let ioError = Code(rawValue: "io_error")
        /// The server refused the connection: a connection limit is reached. `details.limit` names it
        /// (`maxConnections` or `maxConnectionsPerUser`) and `details.value` gives it; the server closes the
        /// connection after this line. Try again later.
        public static let busy = Code(rawValue: "busy")
        /// Something failed inside the daemon; its log has the details.
        public static let `internal` = Code(rawValue: "internal")
        /// The peer is not allowed to do this (writes need the daemon's user, root or the configured group).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The request did not finish within the server's per-request deadline; or, with `details.limit`
        /// `requestLineTimeout` (and `details.value` in seconds), a request line did not arrive in full in time and
        /// the server closes the connection.
        public static let timeout = Code(rawValue: "timeout")
        /// The `op` is not an operation this server knows.
        public static let unknownOp = Code(rawValue: "unknown_op")
        /// No served conference has the name given (acronym, title or file name); `details.conferences` lists the
        /// known names.
        public static let unknownConference = Code(rawValue: "unknown_conference")
        /// A `history` request's `after` token is older than the history the daemon still keeps (it was deleted
        /// since): ask again with `"after": null` and rebuild what the token stood for.
        public static let historyExpired = Code(rawValue: "history_expired")
        /// The server of a shared store (the PostgreSQL personal store) cannot be reached: a write was refused and
        /// nothing of it was written. Reads of that store answer from the last state with `"stale": true` where
        /// the daemon has one; schedule queries go on. The daemon reconnects by itself (`stores` shows the
        /// store's `connection`); try again once it is back. `details.store` names the store.
        public static let unavailable = Code(rawValue: "unavailable")
    }

    /// The stable code.
    public var code: Code
    /// What went wrong and, where possible, how to fix it.
    public var message: String
    /// Extra fields sent beside `code` and `message` in the `error` object.
    public var details: JSONObject
    /// The error that caused this one, kept in the process for logs; never sent.
    public var cause: (any Error & Sendable)?

    /// An error with a code, a message, optional details and an optional cause.
    public init(code: Code, message: String, details: JSONObject = [:], cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.cause = cause
    }

    public static func == (lhs: WireError, rhs: WireError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension WireError {
    /// `bad_request` naming the offending field.
    public static func badRequest(_ message: String, field: String? = nil) -> WireError {
        var details: JSONObject = [:]
        if let field { details["field"] = .string(field) }
        return WireError(code: .badRequest, message: message, details: details)
    }

    /// `parse_error` with the byte offset of the problem.
    public static func parseError(_ message: String, offset: Int) -> WireError {
        WireError(code: .parseError, message: message, details: ["offset": .int(offset)])
    }

    /// `ambiguous_store` listing the stores that could take the object.
    public static func ambiguousStore(_ message: String, candidates: [String]) -> WireError {
        WireError(code: .ambiguousStore, message: message, details: ["candidates": .array(candidates.map(JSONValue.string))])
    }

    /// `too_large` for a request line longer than `limit` bytes (`details.limit` `maxLineLength`, `details.value`).
    public static func tooLarge(limit: Int) -> WireError {
        WireError(
            code: .tooLarge,
            message: "request line longer than \(limit) bytes; send smaller requests",
            details: ["limit": "maxLineLength", "value": .int(limit)]
        )
    }

    /// `busy`: a connection limit named `limit` (`maxConnections`, `maxConnectionsPerUser`) of `value` connections
    /// is reached.
    public static func busy(limit: String, value: Int, message: String) -> WireError {
        WireError(code: .busy, message: message, details: ["limit": .string(limit), "value": .int(Int64(value))])
    }

    /// `timeout` for a request line that did not arrive in full within `seconds` of its first byte; the server
    /// closes the connection after it.
    public static func requestLineTimeout(seconds: Double) -> WireError {
        let value: JSONValue = Int64(exactly: seconds).map(JSONValue.int) ?? .double(seconds)
        return WireError(
            code: .timeout,
            message: "the request line did not arrive within \(value) s of its start; send each request whole",
            details: ["limit": .string("requestLineTimeout"), "value": value])
    }

    /// `too_large` for a reply of `total` objects, more than the `limit` the daemon sends at once: page with
    /// `limit` and `offset`.
    public static func tooManyObjects(_ total: Int, limit: Int) -> WireError {
        WireError(
            code: .tooLarge,
            message: "the reply would hold \(total) objects, more than the \(limit) sent at once; "
                + "page with \"limit\" (at most \(limit)) and \"offset\", or narrow the predicate",
            details: ["limit": "maximumReplyObjects", "value": .int(limit), "total": .int(total)]
        )
    }

    /// `unknown_op` for an operation name the server does not know.
    public static func unknownOp(_ op: String) -> WireError {
        WireError(code: .unknownOp, message: "unknown operation \"\(op)\"", details: ["op": .string(op)])
    }

    /// `unknown_conference` for a name no served conference answers to, listing the names that do.
    public static func unknownConference(_ name: String, known: [String]) -> WireError {
        let list = known.isEmpty ? "no conference is served" : "known: " + known.joined(separator: ", ")
        return WireError(
            code: .unknownConference, message: "no conference is named \"\(name)\" (\(list))",
            details: ["conferences": .array(known.map(JSONValue.string))])
    }

    /// The known conference names of an `unknown_conference`, if any.
    public var conferences: [String]? { details["conferences"]?.arrayValue?.compactMap(\.stringValue) }

    /// The byte offset of a `parse_error`, if any.
    public var offset: Int? { details["offset"]?.intValue.map(Int.init) }

    /// The candidate stores of an `ambiguous_store`, if any.
    public var candidates: [String]? { details["candidates"]?.arrayValue?.compactMap(\.stringValue) }

    /// The limit a `busy`, a request-line `timeout` or a `too_large` reply names, and its value (connections,
    /// seconds or objects), if any.
    public var exceededLimit: (name: String, value: Double)? {
        guard let name = details["limit"]?.stringValue, let value = details["value"]?.doubleValue else { return nil }
        return (name, value)
    }

    /// The object count of a `too_large` reply that was refused, if any.
    public var total: Int? { details["total"]?.intValue.map(Int.init) }

    /// The field named by a `bad_request`, if any.
    public var field: String? { details["field"]?.stringValue }
}

extension WireError {
    /// The `error` object sent on the wire: `code`, `message`, then the details.
    public var json: JSONObject {
        var object: JSONObject = ["code": .string(code.rawValue), "message": .string(message)]
        for (key, value) in details where key != "code" && key != "message" { object[key] = value }
        return object
    }

    /// Reads an `error` object received on the wire; fields other than `code` and `message` become details.
    public init(json: JSONObject) throws(WireError) {
        guard let code = json["code"]?.stringValue else {
            throw WireError.badRequest("error object without a string \"code\"", field: "error.code")
        }
        var details = json
        details["code"] = nil
        details["message"] = nil
        self.init(code: Code(rawValue: code), message: json["message"]?.stringValue ?? "", details: details)
    }
}
