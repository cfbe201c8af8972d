import Foundation

/// A piece of SQL with its bound values, in the order of its `?` placeholders. Values never enter the text.
package struct SQLFragment {
    package var sql: String
    package var bindings: [SQLValue]
    /// Whether the expression can evaluate to NULL (SQL's third truth value); `NOT` must then coalesce it.
    package var mayBeNull: Bool

    package init(_ sql: String, _ bindings: [SQLValue] = [], mayBeNull: Bool = false) {
        self.sql = sql
        self.bindings = bindings
        self.mayBeNull = mayBeNull
    }

    /// The fragment as a two-valued condition (NULL becomes false), in a dialect.
    package func coalesced(_ dialect: any SQLDialect) -> SQLFragment {
        mayBeNull ? SQLFragment(dialect.coalescedToFalse(sql), bindings) : self
    }

    /// `NOT` of the fragment, two-valued, in a dialect.
    package func negated(_ dialect: any SQLDialect) -> SQLFragment {
        SQLFragment("NOT (\(coalesced(dialect).sql))", bindings)
    }

    /// The fragments joined with `AND` or `OR`.
    package static func join(_ parts: [SQLFragment], with word: String) -> SQLFragment {
        if parts.count == 1 { return parts[0] }
        return SQLFragment(
            parts.map { "(\($0.sql))" }.joined(separator: " \(word) "), parts.flatMap(\.bindings),
            mayBeNull: parts.contains { $0.mayBeNull })
    }
}
