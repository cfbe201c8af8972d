import Foundation

/// Resolves key paths of predicates and sort keys to SQL operands, adding joins to the scope as needed.
///
/// Returns `nil` for anything SQL does not read exactly as the in-memory evaluator does (unknown keys, transient
/// properties, collection operators on attributes, …): the caller then evaluates in memory.
package struct KeyPathResolver {
    package let schema: SQLSchema
    /// What the store's SQL engine spells differently.
    package let dialect: any SQLDialect

    /// A resolver over a store's schema, in the store's dialect.
    package init(schema: SQLSchema, dialect: any SQLDialect) {
        self.schema = schema
        self.dialect = dialect
    }

    package func resolve(_ path: String, in scope: QueryScope) -> SQLOperand? {
        if path.isEmpty || path == "SELF" { return .object(alias: scope.alias, mapping: scope.mapping) }
        let components = ObjectExpression.keyPathComponents(path)
        var alias = scope.alias
        var mapping = scope.mapping
        var walked = ""
        for (index, component) in components.enumerated() {
            guard case .key(let key) = component else { return nil }
            let isLast = index == components.count - 1
            walked += (walked.isEmpty ? "" : ".") + key
            if !isLast, let element = compositeElement(components[index...], of: mapping) {
                guard mapping.table.has(element.name) else { return nil }
                return .column("\(alias).\(quoted(element.name))", element.kind)
            }
            if let attribute = mapping.attribute(named: key) {
                guard isLast, mapping.table.has(attribute.name) else { return nil }
                return .column("\(alias).\(quoted(attribute.name))", attribute.kind)
            }
            if let toOne = mapping.toOne(named: key), let destination = toOne.relationship.destinationEntity {
                guard mapping.table.has(toOne.name) else { return nil }
                if isLast { return .foreignKey("\(alias).\(quoted(toOne.name))", destination: destination) }
                // A destination outside the store's configuration has no table here: evaluate in memory.
                guard let target = schema.entities[destination.name], schema.hasTable(target.table.name) else {
                    return nil
                }
                guard let (joined, next) = scope.join(toOne, from: alias, path: walked, schema: schema) else {
                    return nil
                }
                alias = joined
                mapping = next
                continue
            }
            if let toMany = mapping.toMany(named: key) {
                guard let destination = toMany.relationship.destinationEntity,
                    let target = schema.entities[destination.name], schema.hasTable(target.table.name)
                else { return nil }
                return .toMany(toMany, ownerAlias: alias, rest: Array(components[(index + 1)...]), path: walked)
            }
            return nil
        }
        return nil
    }

    /// The column of an element of a composite attribute that the rest of a key path names (`magnitude.richter`).
    private func compositeElement(_ rest: ArraySlice<KeyPathComponent>, of mapping: SQLEntityMapping)
        -> AttributeColumn?
    {
        // Most key paths go through relationships: no string is built for them.
        guard case .key(let first)? = rest.first, mapping.attributes.contains(where: { $0.composite?.name == first })
        else { return nil }
        var keys: [String] = []
        for component in rest {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        guard let column = mapping.attribute(named: keys.joined(separator: ".")), column.composite != nil else {
            return nil
        }
        return column
    }

    /// `@count` / `@sum` / `@avg` / `@min` / `@max` over a to-many relationship, as a scalar subquery.
    package func aggregate(
        _ toMany: ToManyMapping, ownerAlias: String, rest: [KeyPathComponent],
        aliases: AliasCounter
    ) -> SQLOperand? {
        guard case .collectionOperator(let op) = rest.first,
            let source = ToManySource(toMany, ownerAlias: ownerAlias, schema: schema, aliases: aliases)
        else { return nil }
        if op == .count {
            guard rest.count == 1 else { return nil }
            return .aggregate("(SELECT COUNT(*) \(source.clause))", .integer, nullable: false)
        }
        guard rest.count == 2, case .key(let key) = rest[1], let column = source.scope.mapping.attribute(named: key),
            source.scope.mapping.table.has(column.name)
        else { return nil }
        let expression = "\(source.scope.alias).\(quoted(column.name))"
        switch op {
        case .sum where column.kind.isNumeric:
            return .aggregate("(SELECT \(dialect.total(expression)) \(source.clause))", .real, nullable: false)
        case .avg where column.kind.isNumeric:
            return .aggregate("(SELECT \(dialect.average(expression)) \(source.clause))", .real, nullable: true)
        case .min where column.kind.isNumeric || column.kind == .string || column.kind == .date:
            return .aggregate("(SELECT MIN(\(expression)) \(source.clause))", column.kind, nullable: true)
        case .max where column.kind.isNumeric || column.kind == .string || column.kind == .date:
            return .aggregate("(SELECT MAX(\(expression)) \(source.clause))", column.kind, nullable: true)
        default:
            return nil
        }
    }
}
