import Foundation

/// A key path split once, to read values from many objects quickly.
public struct CompiledKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The dotted path this was made from.
    public let path: String
    /// The components of ``path``.
    public let components: [KeyPathComponent]

    /// Splits `path` into components. The empty path and `SELF` mean the object itself.
    public init(_ path: String) {
        self.path = path
        self.components = (path.isEmpty || path == "SELF") ? [] : ObjectExpression.keyPathComponents(path)
    }

    /// The path text.
    public var description: String { path }

    /// The value at this path of `object`; see ``ObjectExpression/value(atKeyPath:of:)``.
    /// - Throws: ``ObjectPredicateError/Code/unknownKey`` or ``ObjectPredicateError/Code/typeMismatch``.
    public func value(of object: Any?) throws -> Any? {
        try Self.evaluate(components[...], of: object)
    }

    /// Evaluates a component slice; shared with the predicate compiler.
    static func evaluate(_ components: ArraySlice<KeyPathComponent>, of object: Any?) throws -> Any? {
        var current = object
        var index = components.startIndex
        while index < components.endIndex {
            switch components[index] {
            case .key(let key):
                current = try KeyValueAccess.value(forKey: key, of: current)
                if current == nil {
                    // A missing collection still has a count (0) and a sum (0).
                    let rest = components[(index + 1)...]
                    guard
                        let opIndex = rest.firstIndex(where: {
                            if case .collectionOperator = $0 { true } else { false }
                        }),
                        case .collectionOperator(let op) = components[opIndex]
                    else { return nil }
                    return try aggregate(op, of: nil, then: components[(opIndex + 1)...])
                }
            case .collectionOperator(let op):
                let rest = components[(index + 1)...]
                return try aggregate(op, of: current, then: rest)
            }
            index += 1
        }
        return current
    }

    /// Applies `op` to the collection `value` after reading `rest` from each element.
    static func aggregate(
        _ op: KeyPathComponent.CollectionOperator, of value: Any?, then rest: ArraySlice<KeyPathComponent>
    ) throws -> Any? {
        let normalized = ValueSemantics.normalized(value)
        var elements = ValueSemantics.collection(normalized) ?? (normalized.map { [$0] } ?? [])
        if !rest.isEmpty {
            var mapped: [Any] = []
            mapped.reserveCapacity(elements.count)
            for element in elements {
                let v = try evaluate(rest, of: element)
                if let nested = ValueSemantics.collection(v) {
                    mapped.append(contentsOf: nested)
                } else if let v {
                    mapped.append(v)
                } else {
                    mapped.append(NSNull())
                }
            }
            elements = mapped
        }
        return try Aggregation.apply(op, to: elements)
    }
}
