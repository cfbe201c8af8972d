extension WireRequest {
    /// `fetch` and `count`: objects of an entity matching an optional predicate.
    ///
    /// `fetch` is answered with ``WireResponse/Fetch``, `count` with ``WireResponse/Count`` (which ignores `sort`,
    /// `limit`, `offset` and `properties`).
    public struct Fetch: WireRequestBody {
        public static let operation = WireOperation.fetch
        /// The entity name, e.g. `Session`.
        public var entity: String
        /// A predicate in the framework's syntax, e.g. `start <= $NOW AND end > $NOW`.
        public var predicate: String?
        /// Values for the predicate's `$VARIABLES` (dates as ISO 8601 strings).
        public var variables: JSONObject
        /// Sort criteria, most significant first.
        public var sort: [SortKey]
        /// The most objects to return.
        public var limit: Int?
        /// How many matching objects to skip.
        public var offset: Int?
        /// The key paths to include in each object's `values` (all attributes when nil), e.g. `room.name`.
        public var properties: [String]?
        /// Restrict the fetch to these stores (ids or file names).
        public var stores: [String]?
        /// Whether sub-entities match too (default true).
        public var includesSubentities: Bool?

        public init(
            entity: String,
            predicate: String? = nil,
            variables: JSONObject = [:],
            sort: [SortKey] = [],
            limit: Int? = nil,
            offset: Int? = nil,
            properties: [String]? = nil,
            stores: [String]? = nil,
            includesSubentities: Bool? = nil
        ) {
            self.entity = entity
            self.predicate = predicate
            self.variables = variables
            self.sort = sort
            self.limit = limit
            self.offset = offset
            self.properties = properties
            self.stores = stores
            self.includesSubentities = includesSubentities
        }

        public init(json: JSONObject) throws(WireError) {
            entity = try json.requiredString("entity")
            predicate = try json.optionalString("predicate")
            variables = try json.optionalObject("variables") ?? [:]
            sort = try SortKey.list(json)
            limit = try json.optionalCount("limit")
            offset = try json.optionalCount("offset")
            properties = try json.optionalStringArray("properties")
            stores = try json.optionalStringArray("stores")
            includesSubentities = try json.optionalBool("includeSubentities")
        }

        public var json: JSONObject {
            var object: JSONObject = ["entity": .string(entity)]
            object.set("predicate", predicate.map(JSONValue.string))
            if !variables.isEmpty { object["variables"] = .object(variables) }
            if !sort.isEmpty { object["sort"] = .array(sort.map { .object($0.json) }) }
            object.set("limit", limit.map { JSONValue.int($0) })
            object.set("offset", offset.map { JSONValue.int($0) })
            object.set("properties", properties.map { .array($0.map(JSONValue.string)) })
            object.set("stores", stores.map { .array($0.map(JSONValue.string)) })
            object.set("includeSubentities", includesSubentities.map(JSONValue.bool))
            return object
        }
    }
}
