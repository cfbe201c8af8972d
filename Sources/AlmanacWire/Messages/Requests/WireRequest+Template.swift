extension WireRequest {
    /// `template`: runs a fetch request template of the model by name. Answered with ``WireResponse/Fetch``.
    public struct Template: WireRequestBody {
        public static let operation = WireOperation.template
        /// The template's name, e.g. `SearchSessions`.
        public var name: String
        /// Values for the template's `$VARIABLES`.
        public var variables: JSONObject
        /// Sort criteria (the template's own when empty).
        public var sort: [SortKey]
        /// The most objects to return.
        public var limit: Int?
        /// How many matching objects to skip.
        public var offset: Int?
        /// The key paths to include in each object's `values`, as for `fetch` (an optional extension).
        public var properties: [String]?

        public init(
            name: String,
            variables: JSONObject = [:],
            sort: [SortKey] = [],
            limit: Int? = nil,
            offset: Int? = nil,
            properties: [String]? = nil
        ) {
            self.name = name
            self.variables = variables
            self.sort = sort
            self.limit = limit
            self.offset = offset
            self.properties = properties
        }

        public init(json: JSONObject) throws(WireError) {
            name = try json.requiredString("name")
            variables = try json.optionalObject("variables") ?? [:]
            sort = try SortKey.list(json)
            limit = try json.optionalCount("limit")
            offset = try json.optionalCount("offset")
            properties = try json.optionalStringArray("properties")
        }

        public var json: JSONObject {
            var object: JSONObject = ["name": .string(name), "variables": .object(variables)]
            if !sort.isEmpty { object["sort"] = .array(sort.map { .object($0.json) }) }
            object.set("limit", limit.map { JSONValue.int($0) })
            object.set("offset", offset.map { JSONValue.int($0) })
            object.set("properties", properties.map { .array($0.map(JSONValue.string)) })
            return object
        }
    }
}
