import ObjectGraph

/// PostgreSQL's spelling for the predicate compiler the SQL stores share.
///
/// Strings live in `TEXT COLLATE "C"` columns of a UTF-8 database, normalized to NFC, so comparisons, `ORDER BY`
/// and substring tests go by Unicode scalars, as Swift compares NFC strings. What PostgreSQL cannot do exactly as
/// the framework does is declined and evaluated in memory over the rows the rest of the predicate selects:
/// `[c]`/`[d]` comparisons (`lower()` and `unaccent` follow the server's Unicode tables and collation, not the
/// framework's folding), `MATCHES` (POSIX regular expressions are not ICU's), and strings with a NUL (which
/// `TEXT` cannot hold).
struct PostgresDialect: SQLDialect {
    var alwaysTrue: String { "TRUE" }
    var alwaysFalse: String { "FALSE" }

    func coalescedToFalse(_ condition: String) -> String { "COALESCE((\(condition)), FALSE)" }

    func isEqual(_ lhs: String, _ rhs: String, _ equal: Bool) -> String {
        "\(lhs) IS \(equal ? "NOT " : "")DISTINCT FROM \(rhs)"
    }

    func folded(_ expression: String, flags: Int) -> String? { nil }

    func canBind(_ string: String) -> Bool { !string.utf8.contains(0) }

    func substring(_ string: String) -> SQLValue { .text(string) }

    func contains(_ expression: String) -> String { "strpos(\(expression), ?) > 0" }

    func isContained(_ expression: String) -> String { "strpos(?, \(expression)) > 0" }

    func hasPrefix(_ expression: String, _ prefix: String) -> SQLFragment {
        SQLFragment("starts_with(\(expression), ?)", [.text(prefix)], mayBeNull: true)
    }

    func hasSuffix(_ expression: String, _ suffix: String) -> SQLFragment {
        SQLFragment(
            "right(\(expression), ?::int) = ?", [.integer(Int64(suffix.unicodeScalars.count)), .text(suffix)],
            mayBeNull: true)
    }

    /// `LIKE` with the framework's wildcards translated (`*` → `%`, `?` → `_`, the rest literal).
    func matchesWildcards(_ expression: String, pattern: String) -> SQLFragment? {
        SQLFragment("\(expression) LIKE ?", [.text(Self.likePattern(pattern))], mayBeNull: true)
    }

    func matchesRegularExpression(_ expression: String, pattern: String, flags: Int) -> SQLFragment? { nil }

    func total(_ expression: String) -> String { "COALESCE(SUM(\(expression)), 0)::float8" }

    func average(_ expression: String) -> String { "AVG(\(expression))::float8" }

    /// `string_agg` with its own `ORDER BY`.
    func orderedList(_ item: String, from source: String, where condition: String, orderBy order: String) -> String {
        "(SELECT string_agg(\(item), ',' ORDER BY \(order)) FROM \(source) WHERE \(condition))"
    }

    /// A framework wildcard pattern (`*`, `?`, `\` escapes) as a `LIKE` pattern (backslash escapes).
    static func likePattern(_ pattern: String) -> String {
        var result = ""
        var escaping = false
        func literal(_ scalar: Unicode.Scalar) {
            if scalar == "%" || scalar == "_" || scalar == "\\" { result += "\\" }
            result.unicodeScalars.append(scalar)
        }
        for scalar in pattern.unicodeScalars {
            if escaping {
                literal(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "*" {
                result += "%"
            } else if scalar == "?" {
                result += "_"
            } else {
                literal(scalar)
            }
        }
        if escaping { literal("\\") }
        return result
    }
}
