import Foundation

extension PredicateValue {
    /// Converts a `%@` argument or substitution value into a constant.
    ///
    /// Accepts nil/`NSNull`, `PredicateValue`, strings (`String`, `Substring`, `NSString`), Booleans, every integer
    /// width, `Double`, `Float`, `Decimal`, `NSNumber`, `Date`, `Data`, `UUID`, `URL`, arrays and sets of these
    /// (sets sorted by printed form), ``PredicateIdentity``, ``PredicateEvaluable`` objects (their
    /// ``PredicateEvaluable/predicateIdentity``, or the instance's `ObjectIdentifier` for classes without one)
    /// and, as identities, any other `Hashable` value (such as a managed object ID).
    /// - Throws: ``ObjectPredicateError/Code/unsupportedArgument`` for anything else.
    public init(argument: Any?) throws {
        self = try Self.convert(argument, depth: 0)
    }

    private static func convert(_ argument: Any?, depth: Int) throws -> PredicateValue {
        guard let value = ValueSemantics.normalized(argument) else { return .null }
        switch value {
        case let v as PredicateValue: return v
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Bool: return .bool(v)
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .url(v)
        case let v as PredicateIdentity: return .identity(v)
        default: break
        }
        if let number = NumericValue(value) {
            switch number {
            case .int(let v): return .integer(v)
            case .double(let v): return .double(v)
            case .decimal(let v): return .decimal(v)
            }
        }
        if let string = value as? NSString { return .string(string as String) }
        if let evaluable = value as? any PredicateEvaluable {
            if let identity = evaluable.predicateIdentity { return .identity(PredicateIdentity(identity)) }
            if type(of: value) is AnyClass { return .identity(PredicateIdentity(ObjectIdentifier(value as AnyObject))) }
            throw ObjectPredicateError(
                .unsupportedArgument, "argument of type \(type(of: value)) has no predicateIdentity to compare")
        }
        if !(value is DictionaryMarker), let elements = ValueSemantics.collection(value) {
            guard depth < ObjectPredicate.maximumNestingDepth else {
                throw ObjectPredicateError(.nestingTooDeep, "argument arrays nest too deeply")
            }
            var converted = try elements.map { try convert($0, depth: depth + 1) }
            if value is Set<AnyHashable> || !(value is [Any]) {
                converted.sort { $0.formatted < $1.formatted }
            }
            return .array(converted)
        }
        if let hashable = value as? AnyHashable, !(value is DictionaryMarker) {
            return .identity(PredicateIdentity(unchecked: hashable))
        }
        throw ObjectPredicateError(.unsupportedArgument, "arguments of type \(type(of: value)) cannot be used in a predicate")
    }

    /// The Swift value the evaluator compares: `Int`, `Double`, `Decimal`, `Bool`, `String`, `Date`, …,
    /// `[Any]` (nil elements as `NSNull`), ``PredicateIdentity``; nil for ``null``.
    public var runtimeValue: Any? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .integer(let v): Int(v)
        case .double(let v): v
        case .decimal(let v): v
        case .string(let v): v
        case .date(let v): v
        case .data(let v): v
        case .uuid(let v): v
        case .url(let v): v
        case .array(let values): values.map { $0.runtimeValue ?? NSNull() } as [Any]
        case .identity(let v): v
        }
    }
}
