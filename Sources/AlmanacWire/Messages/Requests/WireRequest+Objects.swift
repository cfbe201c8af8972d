extension WireRequest {
    /// `get`: one object by URI. Answered with ``WireResponse/Get``; `not_found` when there is none.
    public struct Get: WireRequestBody {
        public static let operation = WireOperation.get
        /// The object's URI, e.g. `x-coredata://<store UUID>/Session/p12`.
        public var uri: String

        public init(uri: String) { self.uri = uri }
        public init(json: JSONObject) throws(WireError) { uri = try json.requiredString("uri") }
        public var json: JSONObject { ["uri": .string(uri)] }
    }

    /// `insert`: a new object. Answered with ``WireResponse/Insert``; `ambiguous_store` when several writable stores
    /// could hold it and `store` is not given; `not_writable`; `forbidden`.
    public struct Insert: WireRequestBody {
        public static let operation = WireOperation.insert
        /// The entity name, e.g. `Favorite`.
        public var entity: String
        /// Attribute values by name (dates as ISO 8601 strings).
        public var values: JSONObject
        /// The store to insert into (id or file name), when more than one could take it.
        public var store: String?

        public init(entity: String, values: JSONObject, store: String? = nil) {
            self.entity = entity
            self.values = values
            self.store = store
        }

        public init(json: JSONObject) throws(WireError) {
            entity = try json.requiredString("entity")
            values = try json.requiredObject("values")
            store = try json.optionalString("store")
        }

        public var json: JSONObject {
            var object: JSONObject = ["entity": .string(entity), "values": .object(values)]
            object.set("store", store.map(JSONValue.string))
            return object
        }
    }

    /// `update`: changes attribute values of an object. Answered with ``WireResponse/Get`` (the object after the
    /// change); `not_found`, `not_writable`, `forbidden`.
    public struct Update: WireRequestBody {
        public static let operation = WireOperation.update
        /// The object's URI.
        public var uri: String
        /// The attribute values to set; `null` clears an optional attribute.
        public var values: JSONObject

        public init(uri: String, values: JSONObject) {
            self.uri = uri
            self.values = values
        }

        public init(json: JSONObject) throws(WireError) {
            uri = try json.requiredString("uri")
            values = try json.requiredObject("values")
        }

        public var json: JSONObject { ["uri": .string(uri), "values": .object(values)] }
    }

    /// `delete`: removes an object. Answered with `{}`; `not_found`, `not_writable`, `forbidden`.
    public struct Delete: WireRequestBody {
        public static let operation = WireOperation.delete
        /// The object's URI.
        public var uri: String

        public init(uri: String) { self.uri = uri }
        public init(json: JSONObject) throws(WireError) { uri = try json.requiredString("uri") }
        public var json: JSONObject { ["uri": .string(uri)] }
    }

    /// `changes`: what changed in the last schedule update. Answered with ``WireResponse/Changes``.
    public struct Changes: WireRequestBody {
        public static let operation = WireOperation.changes
        /// Only this conference (by acronym); all when nil.
        public var conference: String?

        public init(conference: String? = nil) { self.conference = conference }
        public init(json: JSONObject) throws(WireError) { conference = try json.optionalString("conference") }

        public var json: JSONObject {
            var object = JSONObject()
            object.set("conference", conference.map(JSONValue.string))
            return object
        }
    }
}
