/// One component of a dotted key path string such as `pets.@sum.age`.
public enum KeyPathComponent: Sendable, Hashable {
    /// A plain key, read with ``PredicateEvaluable/predicateValue(forKey:)`` or a dictionary lookup.
    case key(String)
    /// A collection operator applied to the collection reached so far; the rest of the path is
    /// read from each element before aggregating (`@sum.age`).
    case collectionOperator(CollectionOperator)

    /// The collection operators of key paths.
    public enum CollectionOperator: String, Sendable, Hashable, CaseIterable {
        /// `@count`: the number of elements (0 for nil).
        case count = "@count"
        /// `@sum`: the sum of the numeric elements (0 for an empty collection); nil elements are skipped.
        case sum = "@sum"
        /// `@avg`: the mean of the numeric elements, as a `Double` (nil for an empty collection).
        case avg = "@avg"
        /// `@min`: the smallest element (numbers, strings or dates), nil for an empty collection.
        case min = "@min"
        /// `@max`: the largest element, nil for an empty collection.
        case max = "@max"
    }
}

extension ObjectExpression {
    /// Splits a dotted key path into keys and collection operators.
    ///
    /// An unknown `@operator` is kept as a plain key (so objects may use keys starting with `@`).
    /// - Parameter keyPath: A path such as `address.city` or `pets.@avg.age`.
    public static func keyPathComponents(_ keyPath: String) -> [KeyPathComponent] {
        keyPath.split(separator: ".", omittingEmptySubsequences: false).map { part in
            if part.first == "@", let op = KeyPathComponent.CollectionOperator(rawValue: String(part)) {
                return .collectionOperator(op)
            }
            return .key(String(part))
        }
    }

    /// The value at a dotted key path of `object`, the key-value coding way.
    ///
    /// Supports `a.b.c`, traversal through to-many relationships (collections of the values, flattened),
    /// and the collection operators `@count @sum @avg @min @max`. Splitting the path costs a little on every
    /// call; use ``CompiledKeyPath`` in loops.
    /// - Throws: ``ObjectPredicateError/Code/unknownKey``, or ``ObjectPredicateError/Code/typeMismatch`` when
    ///   `@sum`/`@avg` meet non-numbers.
    public static func value(atKeyPath path: String, of object: Any?) throws -> Any? {
        try CompiledKeyPath(path).value(of: object)
    }
}
