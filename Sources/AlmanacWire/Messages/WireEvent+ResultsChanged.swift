extension WireEvent.Kind {
    /// The results of a `subscribe` request's fetch changed (fields: ``WireEvent/ResultsChanged``).
    public static let resultsChanged = WireEvent.Kind(rawValue: "resultsChanged")
}

extension WireEvent {
    /// The fields of a `resultsChanged` event: how to turn the results a client holds into the new ones.
    ///
    /// Positions are in the list of results (the fetch's `offset` and `limit` applied). A client removes the
    /// objects at the ``deleted`` positions and the ``moved`` `from` positions (positions in the old list), then
    /// inserts the ``inserted`` objects and the ``moved`` objects at their `position` and `to` positions in
    /// increasing order (positions in the new list), and replaces the ``updated`` objects at their positions (in the
    /// new list). The first event after `subscribe` inserts every result into an empty list.
    public struct ResultsChanged: WireMessageBody {
        /// An object that entered the results, or changed: `{"position": n, "object": {…}}`.
        public struct Entry: WireMessageBody {
            public var position: Int
            public var object: WireObject

            public init(position: Int, object: WireObject) {
                self.position = position
                self.object = object
            }

            public init(json: JSONObject) throws(WireError) {
                position = try json.requiredInt("position")
                object = try WireObject(json: try json.requiredObject("object"))
            }

            public var json: JSONObject { ["position": .int(position), "object": .object(object.json)] }
        }

        /// An object that left the results: `{"position": n, "uri": "…"}` (its old position).
        public struct Removal: WireMessageBody {
            public var position: Int
            public var uri: String

            public init(position: Int, uri: String) {
                self.position = position
                self.uri = uri
            }

            public init(json: JSONObject) throws(WireError) {
                position = try json.requiredInt("position")
                uri = try json.requiredString("uri")
            }

            public var json: JSONObject { ["position": .int(position), "uri": .string(uri)] }
        }

        /// An object that changed place: `{"from": n, "to": m, "object": {…}}` (with its new values).
        public struct Move: WireMessageBody {
            public var from: Int
            public var to: Int
            public var object: WireObject

            public init(from: Int, to: Int, object: WireObject) {
                self.from = from
                self.to = to
                self.object = object
            }

            public init(json: JSONObject) throws(WireError) {
                from = try json.requiredInt("from")
                to = try json.requiredInt("to")
                object = try WireObject(json: try json.requiredObject("object"))
            }

            public var json: JSONObject { ["from": .int(from), "to": .int(to), "object": .object(object.json)] }
        }

        public var inserted: [Entry]
        public var deleted: [Removal]
        public var moved: [Move]
        public var updated: [Entry]

        public init(inserted: [Entry] = [], deleted: [Removal] = [], moved: [Move] = [], updated: [Entry] = []) {
            self.inserted = inserted
            self.deleted = deleted
            self.moved = moved
            self.updated = updated
        }

        public init(json: JSONObject) throws(WireError) {
            func list<T: WireMessageBody>(_ key: String, _: T.Type) throws(WireError) -> [T] {
                var items: [T] = []
                for value in try json.optionalArray(key) ?? [] {
                    guard let object = value.objectValue else {
                        throw WireError.badRequest("\"\(key)\" holds objects", field: key)
                    }
                    items.append(try T(json: object))
                }
                return items
            }
            inserted = try list("inserted", Entry.self)
            deleted = try list("deleted", Removal.self)
            moved = try list("moved", Move.self)
            updated = try list("updated", Entry.self)
        }

        public var json: JSONObject {
            [
                "inserted": .array(inserted.map { .object($0.json) }),
                "deleted": .array(deleted.map { .object($0.json) }),
                "moved": .array(moved.map { .object($0.json) }), "updated": .array(updated.map { .object($0.json) }),
            ]
        }

        /// The event carrying these fields.
        public var event: WireEvent { WireEvent(kind: .resultsChanged, fields: json) }

        /// Applies the changes to a client's list of results (by URI), as the type's documentation describes.
        ///
        /// - Returns: `nil` when a position is outside the list (the list is not the one the event was made for).
        public func applied(to uris: [String]) -> [String]? {
            var kept = uris.indices.map { Optional(uris[$0]) }
            for position in deleted.map(\.position) + moved.map(\.from) {
                guard kept.indices.contains(position), kept[position] != nil else { return nil }
                kept[position] = nil
            }
            var result = kept.compactMap { $0 }
            let insertions = (inserted.map { ($0.position, $0.object.uri) } + moved.map { ($0.to, $0.object.uri) })
                .sorted { $0.0 < $1.0 }
            for (position, uri) in insertions {
                guard position >= 0, position <= result.count else { return nil }
                result.insert(uri, at: position)
            }
            for entry in updated {
                guard result.indices.contains(entry.position), result[entry.position] == entry.object.uri else {
                    return nil
                }
            }
            return result
        }
    }
}
