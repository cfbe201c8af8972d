extension WireRequest {
    /// One sort criterion: `{"key": "start", "ascending": true, "comparison": "compare"}`.
    public struct SortKey: WireMessageBody {
        /// How strings compare.
        public enum Comparison: String, Sendable, Hashable, CaseIterable {
            /// Plain comparison (`compare:`).
            case compare
            /// Case-insensitive comparison (`caseInsensitiveCompare:`).
            case caseInsensitive
            /// Finder-like comparison (`localizedStandardCompare:`).
            case localizedStandard
        }

        /// The key path to sort by, e.g. `start` or `room.name`.
        public var key: String
        /// Ascending (default) or descending.
        public var isAscending: Bool
        /// The string comparison (default ``Comparison/compare``).
        public var comparison: Comparison

        public init(key: String, ascending: Bool = true, comparison: Comparison = .compare) {
            self.key = key
            self.isAscending = ascending
            self.comparison = comparison
        }

        public init(json: JSONObject) throws(WireError) {
            key = try json.requiredString("key")
            isAscending = try json.optionalBool("ascending") ?? true
            if let name = try json.optionalString("comparison") {
                guard let comparison = Comparison(rawValue: name) else {
                    throw .badRequest(
                        "field \"comparison\" must be compare, caseInsensitive or localizedStandard, not \"\(name)\"",
                        field: "comparison"
                    )
                }
                self.comparison = comparison
            } else {
                comparison = .compare
            }
        }

        public var json: JSONObject {
            var object: JSONObject = ["key": .string(key), "ascending": .bool(isAscending)]
            if comparison != .compare { object["comparison"] = .string(comparison.rawValue) }
            return object
        }

        static func list(_ json: JSONObject, field: String = "sort") throws(WireError) -> [SortKey] {
            guard let array = try json.optionalArray(field) else { return [] }
            var keys: [SortKey] = []
            for (position, element) in array.enumerated() {
                guard let object = element.objectValue else {
                    throw .badRequest("\"\(field)\"[\(position)] must be an object {\"key\": …}", field: field)
                }
                do {
                    keys.append(try SortKey(json: object))
                } catch {
                    throw .badRequest("\"\(field)\"[\(position)]: \(error.message)", field: field)
                }
            }
            return keys
        }
    }
}
