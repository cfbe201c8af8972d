import Foundation

/// The general (slow-path) semantics of every comparison operator; see the syntax article.
enum ComparisonEvaluator {
    static func toMany(_ name: String) -> ObjectPredicateError {
        ObjectPredicateError(
            .toManyKeyPathWithoutAggregate,
            "'\(name)' is a to-many key path compared as a single value; use ANY, ALL or NONE, "
                + "or an aggregate such as @count",
            key: name)
    }

    static func mismatch(_ op: ComparisonOperator, _ value: Any) -> ObjectPredicateError {
        ObjectPredicateError(.typeMismatch, "\(op.rawValue) cannot be applied to a value of type \(type(of: value))")
    }

    static func evaluate(
        _ op: ComparisonOperator, _ lhs: Any?, _ rhs: Any?, options: ComparisonOptions, name: String
    ) throws -> Bool {
        let lhs = ValueSemantics.normalized(lhs)
        let rhs = ValueSemantics.normalized(rhs)
        let leftCollection = ValueSemantics.collection(lhs)
        switch op {
        case .equalTo, .notEqualTo:
            let rightCollection = ValueSemantics.collection(rhs)
            if (leftCollection != nil && rhs != nil && rightCollection == nil)
                || (rightCollection != nil && lhs != nil && leftCollection == nil)
            {
                throw toMany(name)
            }
            return ValueSemantics.equal(lhs, rhs, options: options) == (op == .equalTo)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if leftCollection != nil || ValueSemantics.collection(rhs) != nil { throw toMany(name) }
            guard let order = ValueSemantics.compare(lhs, rhs, options: options) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .between:
            if leftCollection != nil { throw toMany(name) }
            guard let bounds = ValueSemantics.collection(rhs), bounds.count == 2 else {
                throw ObjectPredicateError(.typeMismatch, "BETWEEN needs a two-element aggregate {low, high}")
            }
            guard let low = ValueSemantics.compare(lhs, bounds[0], options: options),
                let high = ValueSemantics.compare(lhs, bounds[1], options: options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .beginsWith, .endsWith, .like, .matches:
            if leftCollection != nil { throw toMany(name) }
            guard let lhs, let rhs else { return false }
            guard let text = ValueSemantics.string(lhs) else { throw mismatch(op, lhs) }
            guard let pattern = ValueSemantics.string(rhs) else { throw mismatch(op, rhs) }
            return try stringTest(op, pattern: pattern, options: options)(text)
        case .contains:
            guard let lhs else { return false }
            if let elements = leftCollection {
                return elements.contains { ValueSemantics.equal($0, rhs, options: options) }
            }
            guard let text = ValueSemantics.string(lhs) else { throw mismatch(op, lhs) }
            guard let rhs else { return false }
            guard let needle = ValueSemantics.string(rhs) else { throw mismatch(op, rhs) }
            return StringSearch.contains(StringFolding.fold(text, options), StringFolding.fold(needle, options))
        case .in:
            guard let rhs else { return false }
            if let elements = ValueSemantics.collection(rhs) {
                if leftCollection != nil { throw toMany(name) }
                return elements.contains { ValueSemantics.equal(lhs, $0, options: options) }
            }
            guard let haystack = ValueSemantics.string(rhs) else { throw mismatch(op, rhs) }
            if leftCollection != nil { throw toMany(name) }
            guard let lhs else { return false }
            guard let needle = ValueSemantics.string(lhs) else { throw mismatch(op, lhs) }
            return StringSearch.contains(StringFolding.fold(haystack, options), StringFolding.fold(needle, options))
        }
    }

    /// A test of a (not yet folded) string against a fixed pattern for BEGINSWITH, ENDSWITH, LIKE,
    /// MATCHES, CONTAINS and IN (where the string is the needle).
    static func stringTest(_ op: ComparisonOperator, pattern: String, options: ComparisonOptions) throws
        -> (String) -> Bool
    {
        let folding = options.isFolding
        let folded = StringFolding.fold(pattern, options)
        switch op {
        case .beginsWith:
            return folding ? { StringFolding.fold($0, options).hasPrefix(folded) } : { $0.hasPrefix(folded) }
        case .endsWith:
            return folding ? { StringFolding.fold($0, options).hasSuffix(folded) } : { $0.hasSuffix(folded) }
        case .contains:
            return folding
                ? { StringSearch.contains(StringFolding.fold($0, options), folded) }
                : { StringSearch.contains($0, folded) }
        case .in:
            return folding
                ? { StringSearch.contains(folded, StringFolding.fold($0, options)) }
                : { StringSearch.contains(pattern, $0) }
        case .like:
            let wildcard = WildcardPattern(folded)
            return folding ? { wildcard.matches(StringFolding.fold($0, options)) } : { wildcard.matches($0) }
        case .matches:
            let regex = try RegexCache.regex(for: pattern, caseInsensitive: options.contains(.caseInsensitive))
            var textOptions = options
            textOptions.remove(.caseInsensitive)
            return { RegexCache.wholeMatch(regex, StringFolding.fold($0, textOptions)) }
        default:
            return { _ in false }
        }
    }
}
