extension WireRequest {
    /// `history`: the saves to the daemon's writable stores after a token, oldest first. Answered with
    /// ``WireResponse/History``; `bad_request` (field `after`) for a token that is not one, `history_expired` for a
    /// token older than the history the daemon still keeps.
    public struct History: WireRequestBody {
        public static let operation = WireOperation.history
        /// The `token` of the last transaction the client has seen (or of a previous answer); `nil` for the whole
        /// history kept.
        public var after: String?
        /// At most this many transactions; all when nil.
        public var limit: Int?

        public init(after: String? = nil, limit: Int? = nil) {
            self.after = after
            self.limit = limit
        }

        public init(json: JSONObject) throws(WireError) {
            after = try json.optionalString("after")
            limit = try json.optionalInt("limit")
            if let limit, limit < 0 { throw .badRequest("\"limit\" must not be negative", field: "limit") }
        }

        public var json: JSONObject {
            var object: JSONObject = ["after": after.map(JSONValue.string) ?? .null]
            object.set("limit", limit.map { .int(Int64($0)) })
            return object
        }
    }
}
