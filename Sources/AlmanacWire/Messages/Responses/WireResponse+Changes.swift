extension WireResponse {
    /// One entry of the answer to `changes`: the session as it is now, with the values it had before.
    ///
    /// Sent as a ``WireObject`` with one extra field: `{"uri", "entity", "store", "values", "previous": {…}}`, where
    /// `previous` holds the old values of the keys that changed (empty for added and cancelled sessions).
    public struct ChangeEntry: WireMessageBody {
        public var object: WireObject
        public var previous: JSONObject

        public init(object: WireObject, previous: JSONObject = [:]) {
            self.object = object
            self.previous = previous
        }

        public init(json: JSONObject) throws(WireError) {
            object = try WireObject(json: json)
            previous = try json.optionalObject("previous") ?? [:]
        }

        public var json: JSONObject {
            var json = object.json
            json["previous"] = .object(previous)
            return json
        }
    }

    /// The answer to `changes`: `{"conference": …, "added": [...], "cancelled": [...], "moved": [...],
    /// "changed": [...]}`.
    public struct Changes: WireMessageBody, WireReplyBody {
        /// The conference asked for (its name), or nil when the changes of every conference are listed.
        public var conference: String?
        public var added: [ChangeEntry]
        public var cancelled: [ChangeEntry]
        /// Sessions whose start, end, day or room changed.
        public var moved: [ChangeEntry]
        /// Sessions with other changes (title, persons, …).
        public var changed: [ChangeEntry]

        public init(
            conference: String? = nil,
            added: [ChangeEntry] = [],
            cancelled: [ChangeEntry] = [],
            moved: [ChangeEntry] = [],
            changed: [ChangeEntry] = []
        ) {
            self.conference = conference
            self.added = added
            self.cancelled = cancelled
            self.moved = moved
            self.changed = changed
        }

        public init(json: JSONObject) throws(WireError) {
            func list(_ key: String) throws(WireError) -> [ChangeEntry] {
                json[key] == nil ? [] : try json.objects(key, ChangeEntry.init(json:))
            }
            conference = try json.optionalString("conference")
            added = try list("added")
            cancelled = try list("cancelled")
            moved = try list("moved")
            changed = try list("changed")
        }

        public var json: JSONObject {
            [
                "conference": conference.map(JSONValue.string) ?? .null,
                "added": .array(added.map { .object($0.json) }),
                "cancelled": .array(cancelled.map { .object($0.json) }),
                "moved": .array(moved.map { .object($0.json) }),
                "changed": .array(changed.map { .object($0.json) }),
            ]
        }
    }
}
