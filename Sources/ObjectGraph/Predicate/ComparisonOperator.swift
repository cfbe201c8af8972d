/// The operator of a comparison predicate.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `<`
    case lessThan = "<"
    /// `<=` (also written `=<`)
    case lessThanOrEqualTo = "<="
    /// `>`
    case greaterThan = ">"
    /// `>=` (also written `=>`)
    case greaterThanOrEqualTo = ">="
    /// `==` (also written `=`)
    case equalTo = "=="
    /// `!=` (also written `<>`)
    case notEqualTo = "!="
    /// `MATCHES`: the whole left string matches the right ICU regular expression.
    case matches = "MATCHES"
    /// `LIKE`: the left string matches the right wildcard pattern (`*` any run, `?` one character).
    case like = "LIKE"
    /// `BEGINSWITH`
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`
    case endsWith = "ENDSWITH"
    /// `IN`: the left value is an element of the right collection, or a substring of the right string.
    case `in` = "IN"
    /// `CONTAINS`: the left collection has the right value as an element, or the left string contains the right one.
    case contains = "CONTAINS"
    /// `BETWEEN`: `lo <= left <= hi` for a right-hand two-element aggregate `{lo, hi}`.
    case between = "BETWEEN"

    /// True for the operators that only apply to strings (`IN`/`CONTAINS` also apply to collections).
    public var isStringOperator: Bool {
        switch self {
        case .matches, .like, .beginsWith, .endsWith: true
        default: false
        }
    }
}

/// How a comparison treats a to-many left-hand side.
///
/// The case for `NONE` is ``noneOf`` (not `none`) so it never collides with `Optional.none`.
public enum ComparisonModifier: Sendable, Hashable, CaseIterable {
    /// A plain comparison of two values.
    case direct
    /// `ANY`/`SOME`: true when at least one element of the left collection satisfies the comparison.
    case any
    /// `ALL`: true when every element does (true for an empty collection).
    case all
    /// `NONE`: true when no element does (true for an empty collection).
    case noneOf
}

/// String comparison options, written `[c]`, `[d]`, `[n]` or combined (`[cd]`) after the operator.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Creates options from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: case-insensitive, via Unicode case folding.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive, via canonical decomposition and removal of combining marks.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: the operands are already normalized; accepted and ignored (a hint for stores).
    public static let normalized = ComparisonOptions(rawValue: 4)

    /// The option letters in canonical order (`c`, `d`, `n`), empty for no options.
    public var letters: String {
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
            + (contains(.normalized) ? "n" : "")
    }
}
