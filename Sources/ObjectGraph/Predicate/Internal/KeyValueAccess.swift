import Foundation

/// Reads one key from any evaluation target.
enum KeyValueAccess {
    /// The value for `key`: dictionaries (missing key = nil), ``PredicateEvaluable`` objects, and
    /// collections (the key is read from every element, nested collections flattened, nil as `NSNull`).
    /// - Throws: ``ObjectPredicateError/Code/unknownKey`` for other values.
    @inline(__always)
    static func value(forKey key: String, of object: Any?) throws -> Any? {
        guard let object else { return nil }
        if let dictionary = object as? [String: Any] { return dictionary[key] }
        if let evaluable = object as? any PredicateEvaluable { return try evaluable.predicateValue(forKey: key) }
        return try slowValue(forKey: key, of: object)
    }

    private static func slowValue(forKey key: String, of object: Any) throws -> Any? {
        if let dictionary = object as? [String: Any?] { return dictionary[key] ?? nil }
        guard let object = ValueSemantics.normalized(object) else { return nil }
        if let dictionary = object as? [String: Any] { return dictionary[key] }
        if let evaluable = object as? any PredicateEvaluable { return try evaluable.predicateValue(forKey: key) }
        if let dictionary = object as? [AnyHashable: Any] { return dictionary[key] }
        if let elements = ValueSemantics.collection(object) {
            var result: [Any] = []
            result.reserveCapacity(elements.count)
            for element in elements {
                let value = try value(forKey: key, of: element)
                if let nested = ValueSemantics.collection(value) {
                    result.append(contentsOf: nested)
                } else {
                    result.append(ValueSemantics.normalized(value) ?? NSNull())
                }
            }
            return result
        }
        throw ObjectPredicateError(
            .unknownKey, "a value of type \(type(of: object)) has no key '\(key)'", key: key)
    }
}
