import Foundation

/// Lets the evaluator see through `Optional` values boxed in `Any`.
protocol OptionalBoxing {
    var unboxedValue: Any? { get }
}

extension Optional: OptionalBoxing {
    var unboxedValue: Any? {
        switch self {
        case .none: nil
        case .some(let wrapped): ValueSemantics.normalized(wrapped)
        }
    }
}

/// Marks dictionaries, which are objects (to-one), not collections.
protocol DictionaryMarker {}
extension Dictionary: DictionaryMarker {}

/// Equality, ordering and shape tests shared by the evaluator, key paths and sorting.
enum ValueSemantics {
    /// nil for nil, `NSNull` and boxed `Optional.none`; otherwise the value with boxed optionals unwrapped.
    @inline(__always)
    static func normalized(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        if let boxed = value as? any OptionalBoxing { return boxed.unboxedValue }
        return value
    }

    /// True for nil, `NSNull` and boxed `Optional.none`.
    static func isNull(_ value: Any?) -> Bool { normalized(value) == nil }

    /// The string in a `String`, `Substring` or `NSString`.
    @inline(__always)
    static func string(_ value: Any) -> String? {
        if let s = value as? String { return s }
        if let s = value as? Substring { return String(s) }
        if let s = value as? NSString { return s as String }
        return nil
    }

    /// The elements of an array, set or other collection (not strings, data or dictionaries).
    static func collection(_ value: Any?) -> [Any]? {
        guard let value else { return nil }
        if let array = value as? [Any] { return array }
        if value is String || value is Substring || value is Data || value is DictionaryMarker { return nil }
        if let set = value as? Set<AnyHashable> { return set.map(\.base) }
        if let sequence = value as? any Sequence {
            func elements<S: Sequence>(_ s: S) -> [Any] { s.map { $0 as Any } }
            return elements(sequence)
        }
        return nil
    }

    /// Predicate equality: cross-type numbers, strings under `options`, dates, identities, collections.
    static func equal(_ lhs: Any?, _ rhs: Any?, options: ComparisonOptions = []) -> Bool {
        let lhs = normalized(lhs)
        let rhs = normalized(rhs)
        guard let a = lhs, let b = rhs else { return lhs == nil && rhs == nil }
        if let x = string(a) {
            guard let y = string(b) else {
                if let identity = b as? PredicateIdentity { return identityMatches(a, identity) }
                return false
            }
            return options.isFolding ? StringFolding.fold(x, options) == StringFolding.fold(y, options) : x == y
        }
        if let x = a as? PredicateIdentity { return identityMatches(b, x) }
        if let y = b as? PredicateIdentity { return identityMatches(a, y) }
        if let x = NumericValue(a) {
            guard let y = NumericValue(b) else { return false }
            return NumericValue.compare(x, y) == .orderedSame
        }
        if let x = a as? Date { return (b as? Date) == x }
        if let x = a as? Data { return (b as? Data) == x }
        if let x = a as? UUID { return (b as? UUID) == x }
        if let x = a as? URL { return (b as? URL) == x }
        if let x = collection(a) {
            guard let y = collection(b), x.count == y.count else { return false }
            return zip(x, y).allSatisfy { equal($0, $1, options: options) }
        }
        if let x = a as? any PredicateEvaluable, let y = b as? any PredicateEvaluable {
            if let ix = x.predicateIdentity, let iy = y.predicateIdentity {
                return PredicateIdentity(ix) == PredicateIdentity(iy)
            }
            return sameInstance(a, b)
        }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        return sameInstance(a, b)
    }

    private static func sameInstance(_ a: Any, _ b: Any) -> Bool {
        guard type(of: a) is AnyClass, type(of: b) is AnyClass else { return false }
        return (a as AnyObject) === (b as AnyObject)
    }

    /// True when `value` is an object whose identity (or the value itself) equals `identity`.
    static func identityMatches(_ value: Any, _ identity: PredicateIdentity) -> Bool {
        if let other = value as? PredicateIdentity { return other == identity }
        if let object = value as? any PredicateEvaluable {
            if let own = object.predicateIdentity { return identity.matches(own) }
            if type(of: value) is AnyClass { return identity.matches(ObjectIdentifier(value as AnyObject)) }
            return false
        }
        return identity.matches(value)
    }

    /// Orders two values of comparable kinds (numbers, strings, dates, data, UUIDs, URLs); nil otherwise.
    static func compare(_ lhs: Any?, _ rhs: Any?, options: ComparisonOptions = []) -> ComparisonResult? {
        guard let a = normalized(lhs), let b = normalized(rhs) else { return nil }
        if let x = NumericValue(a) {
            guard let y = NumericValue(b) else { return nil }
            return NumericValue.compare(x, y)
        }
        if let x = string(a) {
            guard let y = string(b) else { return nil }
            let fx = options.isFolding ? StringFolding.fold(x, options) : x
            let fy = options.isFolding ? StringFolding.fold(y, options) : y
            return StringOrder.order(fx, fy)
        }
        if let x = a as? Date {
            guard let y = b as? Date else { return nil }
            return order(x, y)
        }
        if let x = a as? Data, let y = b as? Data {
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        }
        if let x = a as? UUID, let y = b as? UUID { return order(x.uuidString, y.uuidString) }
        if let x = a as? URL, let y = b as? URL { return order(x.absoluteString, y.absoluteString) }
        return nil
    }

    @inline(__always)
    static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }
}

extension ComparisonOptions {
    /// True when the options change string contents (`[c]` or `[d]`).
    var isFolding: Bool { contains(.caseInsensitive) || contains(.diacriticInsensitive) }
}
