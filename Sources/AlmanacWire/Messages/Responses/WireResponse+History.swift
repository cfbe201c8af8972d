extension WireResponse {
    /// The answer to `history`: `{"transactions": [...], "token": …}`, where `token` is the position to ask
    /// after next time (the last transaction's, or the daemon's current one when there is none; `null` when no
    /// store keeps history).
    public struct History: WireMessageBody, WireReplyBody {
        public var transactions: [HistoryTransaction]
        public var token: String?

        public init(transactions: [HistoryTransaction] = [], token: String? = nil) {
            self.transactions = transactions
            self.token = token
        }

        public init(json: JSONObject) throws(WireError) {
            transactions = try json.objects("transactions", HistoryTransaction.init(json:))
            token = try json.optionalString("token")
        }

        public var json: JSONObject {
            [
                "transactions": .array(transactions.map { .object($0.json) }),
                "token": token.map(JSONValue.string) ?? .null,
            ]
        }
    }

    /// One save in the answer to `history`: `{"token", "store", "timestamp", "author", "changes": [...]}`. The
    /// author is who asked for the write: `uid:<uid> request:<request id as JSON>` for the daemon's clients.
    public struct HistoryTransaction: WireMessageBody {
        public var token: String
        public var store: String
        public var timestamp: String
        public var author: String?
        public var changes: [HistoryChange]

        public init(token: String, store: String, timestamp: String, author: String?, changes: [HistoryChange]) {
            self.token = token
            self.store = store
            self.timestamp = timestamp
            self.author = author
            self.changes = changes
        }

        public init(json: JSONObject) throws(WireError) {
            token = try json.requiredString("token")
            store = try json.requiredString("store")
            timestamp = try json.requiredString("timestamp")
            author = try json.optionalString("author")
            changes = try json.objects("changes", HistoryChange.init(json:))
        }

        public var json: JSONObject {
            [
                "token": .string(token), "store": .string(store), "timestamp": .string(timestamp),
                "author": author.map(JSONValue.string) ?? .null, "changes": .array(changes.map { .object($0.json) }),
            ]
        }
    }

    /// One object's change in a ``HistoryTransaction``: `{"type": "insert" | "update" | "delete", "uri", "entity",
    /// "updated"?}` (`updated`: the properties an update changed).
    public struct HistoryChange: WireMessageBody {
        public var type: String
        public var uri: String
        public var entity: String
        public var updated: [String]?

        public init(type: String, uri: String, entity: String, updated: [String]? = nil) {
            self.type = type
            self.uri = uri
            self.entity = entity
            self.updated = updated
        }

        public init(json: JSONObject) throws(WireError) {
            type = try json.requiredString("type")
            uri = try json.requiredString("uri")
            entity = try json.requiredString("entity")
            updated = try json.optionalStringArray("updated")
        }

        public var json: JSONObject {
            var object: JSONObject = ["type": .string(type), "uri": .string(uri), "entity": .string(entity)]
            object.set("updated", updated.map { .array($0.map(JSONValue.string)) })
            return object
        }
    }
}
