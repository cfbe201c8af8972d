import Foundation

/// A predicate operand resolved against the schema: what SQL can read for it.
package enum SQLOperand {
    /// A nullable scalar column expression of a kind.
    case column(String, ColumnKind)
    /// A to-one relationship's foreign key (the destination's `Z_PK`), with its destination.
    case foreignKey(String, destination: EntityDescription)
    /// The evaluated object itself (its `Z_PK`).
    case object(alias: String, mapping: SQLEntityMapping)
    /// A to-many relationship read from `alias`, with the rest of the key path to read from each destination.
    case toMany(ToManyMapping, ownerAlias: String, rest: [KeyPathComponent], path: String)
    /// A scalar computed by a subquery (`@count`, `@sum` …); `nullable` for `@avg`, `@min`, `@max`.
    case aggregate(String, ColumnKind, nullable: Bool)
    /// A constant.
    case constant(PredicateValue)

    package var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }
}

/// The `FROM … WHERE` of a subquery over a to-many relationship's destinations, correlated with its owner row.
package struct ToManySource {
    /// The scope of the destination rows (joins to-one paths read inside it).
    package let scope: QueryScope
    /// The tables and join condition, before the scope's own joins.
    package let from: String
    /// The correlation condition (and the destination's entity restriction).
    package let link: String

    /// `FROM … [joins] WHERE link`.
    package var clause: String {
        "FROM " + from + (scope.joins.isEmpty ? "" : " " + scope.joins.joined(separator: " ")) + " WHERE " + link
    }

    /// Makes the source for a to-many relationship of the row aliased `ownerAlias`.
    package init?(_ toMany: ToManyMapping, ownerAlias: String, schema: SQLSchema, aliases: AliasCounter) {
        guard let destination = toMany.relationship.destinationEntity else { return nil }
        let mapping = schema.mapping(destination)
        let alias = aliases.next()
        scope = QueryScope(alias: alias, mapping: mapping, aliases: aliases)
        var conditions: [String]
        switch toMany.link {
        case .foreignKey(let table, let column):
            from = "\(quoted(table.name)) \(alias)"
            conditions = ["\(alias).\(quoted(column.name)) = \(ownerAlias).Z_PK"]
        case .join(let join, let isOwner):
            let link = aliases.next()
            let mine = isOwner ? join.ownerColumn : join.otherColumn
            let theirs = isOwner ? join.otherColumn : join.ownerColumn
            from =
                "\(quoted(join.name)) \(link) JOIN \(quoted(mapping.table.name)) \(alias) ON \(alias).Z_PK = "
                + "\(link).\(quoted(theirs))"
            conditions = ["\(link).\(quoted(mine)) = \(ownerAlias).Z_PK"]
        }
        let kinds = schema.numbers(ofKind: destination)
        if kinds.count < mapping.table.entityNumbers.count {
            conditions.append("\(alias).Z_ENT IN (" + kinds.map(String.init).joined(separator: ", ") + ")")
        }
        link = conditions.joined(separator: " AND ")
    }
}
