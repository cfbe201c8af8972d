import Foundation

/// Builds type-specialised tests for comparisons whose right-hand side is a constant.
///
/// Each test tries the common case with one cast (`value as? String`, `Int`, `Double`, `Date`)
/// and falls back to ``ComparisonEvaluator`` for everything else, so results are identical.
enum ComparisonFastPath {
    typealias Test = (Any?) throws -> Bool

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
        let folding = options.isFolding
        switch op {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if let string = constant as? String {
                if !folding { return ordered(string, op, slow: slow) }
                if op == .equalTo || op == .notEqualTo {
                    let folded = StringFolding.fold(string, options)
                    let equal = op == .equalTo
                    return { value in
                        if let text = value as? String { return (StringFolding.fold(text, options) == folded) == equal }
                        return try slow(value)
                    }
                }
                return slow
            }
            if let integer = constant as? Int { return ordered(integer, op, slow: slow) }
            if let double = constant as? Double, !double.isNaN { return ordered(double, op, slow: slow) }
            if let date = constant as? Date { return ordered(date, op, slow: slow) }
            return slow
        case .beginsWith, .endsWith, .like, .matches, .contains:
            guard let pattern = constant as? String else { return slow }
            let test = try ComparisonEvaluator.stringTest(op, pattern: pattern, options: options)
            return { value in
                if let text = value as? String { return test(text) }
                return try slow(value)
            }
        case .in:
            if let pattern = constant as? String {
                let test = try ComparisonEvaluator.stringTest(.in, pattern: pattern, options: options)
                return { value in
                    if let text = value as? String { return test(text) }
                    return try slow(value)
                }
            }
            guard let elements = constant as? [Any], !folding else { return slow }
            if let strings = elements as? [String] {
                let set = Set(strings)
                return { value in
                    if let text = value as? String { return set.contains(text) }
                    return try slow(value)
                }
            }
            if let integers = elements as? [Int] {
                let set = Set(integers)
                return { value in
                    if let integer = value as? Int { return set.contains(integer) }
                    return try slow(value)
                }
            }
            return slow
        case .between:
            guard let bounds = constant as? [Any], bounds.count == 2 else { return slow }
            if let low = bounds[0] as? Int, let high = bounds[1] as? Int {
                return { value in
                    if let integer = value as? Int { return integer >= low && integer <= high }
                    return try slow(value)
                }
            }
            if let low = bounds[0] as? Date, let high = bounds[1] as? Date {
                return { value in
                    if let date = value as? Date { return date >= low && date <= high }
                    return try slow(value)
                }
            }
            return slow
        }
    }

    /// Fast `==`, `!=`, `<`, `<=`, `>`, `>=` against a constant of a `Comparable` type.
    static func ordered<T: Comparable>(_ constant: T, _ op: ComparisonOperator, slow: @escaping Test) -> Test {
        switch op {
        case .equalTo:
            return { value in
                if let x = value as? T { return x == constant }
                return try slow(value)
            }
        case .notEqualTo:
            return { value in
                if let x = value as? T { return x != constant }
                return try slow(value)
            }
        case .lessThan:
            return { value in
                if let x = value as? T { return x < constant }
                return try slow(value)
            }
        case .lessThanOrEqualTo:
            return { value in
                if let x = value as? T { return x <= constant }
                return try slow(value)
            }
        case .greaterThan:
            return { value in
                if let x = value as? T { return x > constant }
                return try slow(value)
            }
        case .greaterThanOrEqualTo:
            return { value in
                if let x = value as? T { return x >= constant }
                return try slow(value)
            }
        default:
            return slow
        }
    }

    /// `key OP constant` as one closure for `String`, `Int`, `Double` and `Date` constants (no options);
    /// other value types go to `slow`, which gives the same results.
    static func fused(key: String, _ op: ComparisonOperator, constant: Any?, slow: @escaping Test) -> BoolEvaluator? {
        if let value = constant as? String { return fused(key: key, op, value, slow: slow) }
        if let value = constant as? Int { return fused(key: key, op, value, slow: slow) }
        if let value = constant as? Double, !value.isNaN { return fused(key: key, op, value, slow: slow) }
        if let value = constant as? Date { return fused(key: key, op, value, slow: slow) }
        return nil
    }

    private static func fused<T: Comparable>(key: String, _ op: ComparisonOperator, _ constant: T, slow: @escaping Test)
        -> BoolEvaluator?
    {
        switch op {
        case .equalTo:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x == constant }
                return try slow(value)
            }
        case .notEqualTo:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x != constant }
                return try slow(value)
            }
        case .lessThan:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x < constant }
                return try slow(value)
            }
        case .lessThanOrEqualTo:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x <= constant }
                return try slow(value)
            }
        case .greaterThan:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x > constant }
                return try slow(value)
            }
        case .greaterThanOrEqualTo:
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? T { return x >= constant }
                return try slow(value)
            }
        case .beginsWith:
            guard let prefix = constant as? String else { return nil }
            return { subject, _ in
                let value = try subject.value(forKey: key)
                if let x = value as? String { return x.hasPrefix(prefix) }
                return try slow(value)
            }
        default:
            return nil
        }
    }
}
