/// What the SQL stores spell differently, for the predicate compiler they share (``PredicateSQLCompiler``).
///
/// The compiler writes `?` for every bound value, in order; a store whose engine numbers its parameters
/// (PostgreSQL's `$1`) renumbers them when it prepares the statement. A method that returns `nil` declines: the
/// comparison is then evaluated in memory, so every dialect agrees with the in-memory evaluator exactly.
package protocol SQLDialect: Sendable {
    /// The condition that holds for every row (`1` in SQLite, `TRUE` in PostgreSQL).
    var alwaysTrue: String { get }
    /// The condition that holds for no row.
    var alwaysFalse: String { get }
    /// A condition that may be NULL, as a two-valued one (NULL becomes false).
    func coalescedToFalse(_ condition: String) -> String
    /// Null-safe equality (`equal`) or inequality of two expressions: NULL equals NULL and differs from any value.
    func isEqual(_ lhs: String, _ rhs: String, _ equal: Bool) -> String
    /// A string expression folded as the framework folds for `[c]` (flags 1), `[d]` (2) or both (3); `nil` when the
    /// engine cannot fold exactly so.
    func folded(_ expression: String, flags: Int) -> String?
    /// Whether a string value can be bound at all.
    func canBind(_ string: String) -> Bool
    /// The value bound for the `?` of ``contains(_:)`` and ``isContained(_:)``.
    func substring(_ string: String) -> SQLValue
    /// Whether the string expression contains the bound string (`?`) as a substring.
    func contains(_ expression: String) -> String
    /// Whether the bound string (`?`) contains the string expression as a substring.
    func isContained(_ expression: String) -> String
    /// Whether a (folded) string expression starts with a prefix, compared by Unicode scalars.
    func hasPrefix(_ expression: String, _ prefix: String) -> SQLFragment
    /// Whether a (folded) string expression ends with a suffix, compared by Unicode scalars.
    func hasSuffix(_ expression: String, _ suffix: String) -> SQLFragment
    /// A framework wildcard match (`*`, `?`, `\` escapes), case-sensitive; `nil` to match in memory.
    func matchesWildcards(_ expression: String, pattern: String) -> SQLFragment?
    /// A regular-expression match with the framework's rules; `nil` to match in memory.
    func matchesRegularExpression(_ expression: String, pattern: String, flags: Int) -> SQLFragment?
    /// The sum of a numeric expression over a subquery's rows, 0.0 for none, as a double.
    func total(_ expression: String) -> String
    /// The average of a numeric expression over a subquery's rows, NULL for none, as a double.
    func average(_ expression: String) -> String
    /// A scalar subquery: the text `item` of the rows of `source` where `condition` holds, joined with commas in
    /// the order `order`; NULL when no row matches. (The record readers list to-many destinations this way.)
    func orderedList(_ item: String, from source: String, where condition: String, orderBy order: String) -> String
}
