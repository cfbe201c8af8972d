import Foundation

/// One `FROM` level of a query: the main table, or the destination table inside an `EXISTS`/`COUNT` subquery.
///
/// Key paths through to-one relationships add `LEFT JOIN`s to the scope that reads them (a missing destination
/// reads as NULL, as a nil relationship does in memory).
package final class QueryScope {
    package let alias: String
    package let mapping: SQLEntityMapping
    package let aliases: AliasCounter
    package private(set) var joins: [String] = []
    private var joinAliases: [String: (alias: String, mapping: SQLEntityMapping)] = [:]

    package init(alias: String, mapping: SQLEntityMapping, aliases: AliasCounter) {
        self.alias = alias
        self.mapping = mapping
        self.aliases = aliases
    }

    /// The alias of the destination of a to-one relationship read from `alias`, joining it on first use.
    package func join(_ column: ToOneColumn, from alias: String, path: String, schema: SQLSchema) -> (
        String, SQLEntityMapping
    )? {
        if let existing = joinAliases[path] { return existing }
        guard let destination = column.relationship.destinationEntity else { return nil }
        let mapping = schema.mapping(destination)
        let joined = aliases.next()
        joins.append(
            "LEFT JOIN \(quoted(mapping.table.name)) \(joined) ON \(joined).Z_PK = \(alias).\(quoted(column.name))")
        joinAliases[path] = (joined, mapping)
        return (joined, mapping)
    }

    /// The `FROM` list: the table and its joins.
    package func fromClause() -> String {
        ([quoted(mapping.table.name) + " " + alias] + joins).joined(separator: " ")
    }
}

/// Hands out unique table aliases (`t0`, `t1`, …) for one query.
package final class AliasCounter {
    package init() {}

    private var count = 0

    /// How many aliases were handed out.
    package var taken: Int { count }

    package func next() -> String {
        defer { count += 1 }
        return "t\(count)"
    }

    /// Hands out `count` aliases unseen (what a cached part of a query took when it was made).
    package func skip(_ count: Int) {
        self.count += count
    }
}
