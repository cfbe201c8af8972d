import Foundation
import ObjectGraph

/// SQLite's spelling for the shared predicate compiler: `IS` for null-safe equality, substring tests over the
/// UTF-8 bytes (`CAST(… AS BLOB)`, so NFC text compares as Swift compares scalars and embedded NULs count), and
/// the functions the store registers on its connections: `og_fold` (the framework's folding) and `regexp`.
struct SQLiteDialect: SQLDialect {
    var alwaysTrue: String { "1" }
    var alwaysFalse: String { "0" }

    func coalescedToFalse(_ condition: String) -> String { "IFNULL((\(condition)), 0)" }

    func isEqual(_ lhs: String, _ rhs: String, _ equal: Bool) -> String {
        "\(lhs) IS \(equal ? "" : "NOT ")\(rhs)"
    }

    func folded(_ expression: String, flags: Int) -> String? { "og_fold(\(expression), \(flags))" }

    func canBind(_ string: String) -> Bool { true }

    /// A string's UTF-8 bytes as a blob: substring tests compare bytes (NFC text, embedded NULs included), which
    /// for UTF-8 is the same as comparing Unicode scalars.
    func substring(_ string: String) -> SQLValue { .blob(Data(string.utf8)) }

    func contains(_ expression: String) -> String { "instr(CAST(\(expression) AS BLOB), ?) > 0" }

    func isContained(_ expression: String) -> String { "instr(?, CAST(\(expression) AS BLOB)) > 0" }

    func hasPrefix(_ expression: String, _ prefix: String) -> SQLFragment {
        SQLFragment(
            "substr(CAST(\(expression) AS BLOB), 1, ?) = ?",
            [.integer(Int64(prefix.utf8.count)), substring(prefix)], mayBeNull: true)
    }

    func hasSuffix(_ expression: String, _ suffix: String) -> SQLFragment {
        SQLFragment(
            "substr(CAST(\(expression) AS BLOB), ?) = ?",
            [.integer(-Int64(suffix.utf8.count)), substring(suffix)], mayBeNull: true)
    }

    /// A case-sensitive `GLOB`.
    func matchesWildcards(_ expression: String, pattern: String) -> SQLFragment? {
        SQLFragment("\(expression) GLOB ?", [.text(PredicateSQLCompiler.glob(fromLike: pattern))], mayBeNull: true)
    }

    /// The registered `regexp(pattern, text, flags)`, which follows the framework's rules.
    func matchesRegularExpression(_ expression: String, pattern: String, flags: Int) -> SQLFragment? {
        SQLFragment("regexp(?, \(expression), \(flags))", [.text(pattern)], mayBeNull: true)
    }

    func total(_ expression: String) -> String { "TOTAL(\(expression))" }

    func average(_ expression: String) -> String { "AVG(\(expression))" }

    /// `group_concat` over an ordered subquery (SQLite keeps the subquery's order).
    func orderedList(_ item: String, from source: String, where condition: String, orderBy order: String) -> String {
        "(SELECT group_concat(x, ',') FROM (SELECT \(item) AS x FROM \(source) WHERE \(condition) ORDER BY \(order)))"
    }
}
