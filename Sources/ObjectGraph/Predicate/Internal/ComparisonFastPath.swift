import Foundation

/// Builds type-specialised tests for comparisons whose right-hand side is a constant.
///
/// Each test tries the common case with one cast (`value as? String`, `Int`, `Double`, `Date`)
/// and falls back to ``ComparisonEvaluator`` for everything else, so results are identical.
enum ComparisonFastPath {
    typealias Test = (Any?) throws -> Bool

    /// The typed half of a comparison against a constant: the test applied when the value casts to the kernel's
    /// type (`value as? String`, `Int`, `Double`, `Date`); every other value goes to ``ComparisonEvaluator``.
    /// Object tests (``make(_:constant:options:name:)``) and column tests over stores' rows both use it, so both
    /// give the same results by construction.
    enum Kernel {
        case string((String) -> Bool)
        case int((Int) -> Bool)
        case double((Double) -> Bool)
        case date((Date) -> Bool)

        /// The test of one value: the kernel when the value has its type, `slow` otherwise.
        func test(slow: @escaping Test) -> Test {
            switch self {
            case .string(let test): Self.typed(test, slow: slow)
            case .int(let test): Self.typed(test, slow: slow)
            case .double(let test): Self.typed(test, slow: slow)
            case .date(let test): Self.typed(test, slow: slow)
            }
        }

        private static func typed<T>(_ test: @escaping (T) -> Bool, slow: @escaping Test) -> Test {
            { value in
                if let x = value as? T { return test(x) }
                return try slow(value)
            }
        }
    }

    /// The test of `value OP constant` for any value.
    static func make(_ op: ComparisonOperator, constant: Any?, options: ComparisonOptions, name: String) throws
        -> Test
    {
        let slow: Test = { value in
            try ComparisonEvaluator.evaluate(op, value, constant, options: options, name: name)
        }
        guard let constant else {
            switch op {
            case .equalTo: return { value in ValueSemantics.isNull(value) }
            case .notEqualTo: return { value in !ValueSemantics.isNull(value) }
            default: return slow
            }
        }
        // Not `?? slow`: a closure passed through an optional comes out wrapped in reabstraction thunks.
        if let kernel = try kernel(op, constant: constant, options: options) { return kernel.test(slow: slow) }
        return slow
    }

    /// The typed kernel of `value OP constant`, or `nil` when every value takes the general path.
    static func kernel(_ op: ComparisonOperator, constant: Any, options: ComparisonOptions) throws -> Kernel? {
        let folding = options.isFolding
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if let string = constant as? String {
                if !folding {
                    if let test = StringOrder.test(op, string) { return .string(test) }
                    return .string { holds(op, $0, string) }
                }
                if op == .equalTo || op == .notEqualTo {
                    let folded = StringFolding.fold(string, options)
                    let equal = op == .equalTo
                    return .string { text in (StringFolding.fold(text, options) == folded) == equal }
                }
                return nil
            }
            // Each closure is made here, where its type is concrete: made by a generic function it is kept in
            // its most general form and called through reabstraction thunks, at every row of a column scan.
            if let integer = constant as? Int { return .int { holds(op, $0, integer) } }
            if let double = constant as? Double, !double.isNaN { return .double { holds(op, $0, double) } }
            if let date = constant as? Date { return .date { holds(op, $0, date) } }
            return nil
        case .beginsWith, .endsWith, .like, .matches, .contains:
            guard let pattern = constant as? String else { return nil }
            return .string(try ComparisonEvaluator.stringTest(op, pattern: pattern, options: options))
        case .in:
            if let pattern = constant as? String {
                return .string(try ComparisonEvaluator.stringTest(.in, pattern: pattern, options: options))
            }
            guard let elements = constant as? [Any], !folding else { return nil }
            if let strings = elements as? [String] {
                let set = Set(strings)
                return .string { set.contains($0) }
            }
            if let integers = elements as? [Int] {
                let set = Set(integers)
                return .int { set.contains($0) }
            }
            return nil
        case .between:
            guard let bounds = constant as? [Any], bounds.count == 2 else { return nil }
            if let low = bounds[0] as? Int, let high = bounds[1] as? Int { return .int { $0 >= low && $0 <= high } }
            if let low = bounds[0] as? Date, let high = bounds[1] as? Date { return .date { $0 >= low && $0 <= high } }
            return nil
        }
    }

    /// `lhs OP rhs` for `==`, `!=`, `<`, `<=`, `>`, `>=` (`op` is one of them).
    @inline(__always)
    static func holds<T: Comparable>(_ op: ComparisonOperator, _ lhs: T, _ rhs: T) -> Bool {
        switch op {
        case .equalTo: lhs == rhs
        case .notEqualTo: lhs != rhs
        case .lessThan: lhs < rhs
        case .lessThanOrEqualTo: lhs <= rhs
        case .greaterThan: lhs > rhs
        case .greaterThanOrEqualTo: lhs >= rhs
        default: false
        }
    }

    /// `key OP constant` as one closure for `String`, `Int`, `Double` and `Date` constants (no options);
    /// other value types go to `slow`, which gives the same results.
    static func fused(key: String, _ op: ComparisonOperator, constant: Any?, slow: @escaping Test) -> StoredEvaluator? {
        if let value = constant as? String {
            guard let test = StringOrder.test(op, value) else { return fused(key: key, op, value, slow: slow) }
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? String { return test(x) }
                return try slow(value)
            }
        }
        if let value = constant as? Int { return fused(key: key, op, value, slow: slow) }
        if let value = constant as? Double, !value.isNaN { return fused(key: key, op, value, slow: slow) }
        if let value = constant as? Date { return fused(key: key, op, value, slow: slow) }
        return nil
    }

    private static func fused<T: Comparable>(key: String, _ op: ComparisonOperator, _ constant: T, slow: @escaping Test)
        -> StoredEvaluator?
    {
        switch op {
        case .equalTo:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x == constant }
                return try slow(value)
            }
        case .notEqualTo:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x != constant }
                return try slow(value)
            }
        case .lessThan:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x < constant }
                return try slow(value)
            }
        case .lessThanOrEqualTo:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x <= constant }
                return try slow(value)
            }
        case .greaterThan:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x > constant }
                return try slow(value)
            }
        case .greaterThanOrEqualTo:
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x >= constant }
                return try slow(value)
            }
        case .beginsWith:
            guard let prefix = constant as? String else { return nil }
            return StoredEvaluator { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? String { return x.hasPrefix(prefix) }
                return try slow(value)
            }
        default:
            return nil
        }
    }
}
