import Foundation

/// A piece of SQL with its bound values, in the order of its `?` placeholders. Values never enter the text.
struct SQLFragment {
    var sql: String
    var bindings: [SQLiteValue]
    /// Whether the expression can evaluate to NULL (SQL's third truth value); `NOT` must then coalesce it.
    var mayBeNull: Bool

    init(_ sql: String, _ bindings: [SQLiteValue] = [], mayBeNull: Bool = false) {
        self.sql = sql
        self.bindings = bindings
        self.mayBeNull = mayBeNull
    }

    static let alwaysTrue = SQLFragment("1")
    static let alwaysFalse = SQLFragment("0")

    /// The fragment as a two-valued condition (NULL becomes false).
    var coalesced: SQLFragment {
        mayBeNull ? SQLFragment("IFNULL((\(sql)), 0)", bindings) : self
    }

    /// `NOT` of the fragment, two-valued.
    var negated: SQLFragment {
        SQLFragment("NOT (\(coalesced.sql))", bindings)
    }

    /// The fragments joined with `AND` or `OR`.
    static func join(_ parts: [SQLFragment], with word: String) -> SQLFragment {
        if parts.count == 1 { return parts[0] }
        return SQLFragment(parts.map { "(\($0.sql))" }.joined(separator: " \(word) "), parts.flatMap(\.bindings),
                           mayBeNull: parts.contains { $0.mayBeNull })
    }
}
