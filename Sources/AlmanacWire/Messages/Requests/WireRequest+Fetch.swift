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
        /// `"dictionary"` answers `rows` (``WireResponse/Fetch/rows``) instead of objects: the `properties`,
        /// `aggregates` and `groupBy` values per object or per group. `nil` or `"objects"`: objects.
        public var resultType: String?
        /// Dictionary fetches: aggregates per group (or over every matching object without `groupBy`).
        public var aggregates: [Aggregate]
        /// Dictionary fetches: the key paths whose values make a group, e.g. `room.name`.
        public var groupBy: [String]?
        /// Dictionary fetches with groups: a predicate over each group's row, e.g. `sessions > 3`.
        public var having: String?
        /// Dictionary fetches: equal rows come back once.
        public var distinct: Bool?

        public init(
            entity: String,
            predicate: String? = nil,
            variables: JSONObject = [:],
            sort: [SortKey] = [],
            limit: Int? = nil,
            offset: Int? = nil,
            properties: [String]? = nil,
            stores: [String]? = nil,
            includesSubentities: Bool? = nil,
            resultType: String? = nil,
            aggregates: [Aggregate] = [],
            groupBy: [String]? = nil,
            having: String? = nil,
            distinct: Bool? = nil
        ) {
            self.resultType = resultType
            self.aggregates = aggregates
            self.groupBy = groupBy
            self.having = having
            self.distinct = distinct
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
            resultType = try json.optionalString("resultType")
            aggregates = try Self.aggregates(json.optionalArray("aggregates") ?? [])
            groupBy = try json.optionalStringArray("groupBy")
            having = try json.optionalString("having")
            distinct = try json.optionalBool("distinct")
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
            object.set("resultType", resultType.map(JSONValue.string))
            if !aggregates.isEmpty { object["aggregates"] = .array(aggregates.map { .object($0.json) }) }
            object.set("groupBy", groupBy.map { .array($0.map(JSONValue.string)) })
            object.set("having", having.map(JSONValue.string))
            object.set("distinct", distinct.map(JSONValue.bool))
            return object
        }

        private static func aggregates(_ values: [JSONValue]) throws(WireError) -> [Aggregate] {
            var aggregates: [Aggregate] = []
            for value in values {
                guard case .object(let object) = value else {
                    throw WireError.badRequest("\"aggregates\" holds objects", field: "aggregates")
                }
                aggregates.append(try Aggregate(json: object))
            }
            return aggregates
        }

        /// An aggregate of a dictionary fetch: `{"name": "minutes", "function": "sum", "key": "duration"}`.
        public struct Aggregate: Sendable, Hashable {
            /// The key of the value in each row.
            public var name: String
            /// `count`, `sum`, `avg`, `min` or `max`.
            public var function: String
            /// The aggregated key path; `nil` with `count` counts objects.
            public var key: String?

            public init(name: String, function: String, key: String? = nil) {
                self.name = name
                self.function = function
                self.key = key
            }

            public init(json: JSONObject) throws(WireError) {
                name = try json.requiredString("name")
                function = try json.requiredString("function")
                key = try json.optionalString("key")
            }

            public var json: JSONObject {
                var object: JSONObject = ["name": .string(name), "function": .string(function)]
                object.set("key", key.map(JSONValue.string))
                return object
            }
        }
    }
}
