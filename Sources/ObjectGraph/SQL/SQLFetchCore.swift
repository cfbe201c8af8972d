/// The `FROM` and `WHERE` of a store fetch, shared by the SQL stores' fetches and counts: the restriction to the
/// request's entities and the predicate's longest translatable prefix.
package struct SQLFetchCore {
    /// The main table's scope, with the joins the conditions need.
    package let scope: QueryScope
    /// The `WHERE` condition; `nil` for none.
    package let conditions: SQLFragment?
    /// Whether the conditions are the whole predicate (else memory finishes the job).
    package let isPredicateComplete: Bool

    /// Compiles the restriction to the request's entities and the predicate's translatable prefix; `nil` when
    /// the store has no table for the entity or holds none of the request's entities.
    package static func make(
        _ request: StoreFetchRequest, schema: SQLSchema, storeIdentifier: String,
        dialect: any SQLDialect
    ) -> SQLFetchCore? {
        let mapping = schema.mapping(request.entity)
        guard schema.hasTable(mapping.table.name) else { return nil }
        let numbers = request.entityNames.compactMap { schema.entities[$0]?.number }.sorted()
        guard !numbers.isEmpty else { return nil }
        let aliases = AliasCounter()
        let scope = QueryScope(alias: aliases.next(), mapping: mapping, aliases: aliases)
        var parts: [SQLFragment] = []
        if numbers.count < mapping.table.entityNumbers.count {
            parts.append(
                SQLFragment(
                    "\(scope.alias).Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ")
                        + ")"))
        }
        var complete = true
        if let predicate = request.predicate {
            let compiler = PredicateSQLCompiler(schema: schema, storeIdentifier: storeIdentifier, dialect: dialect)
            let (fragment, isComplete) = compiler.compilePrefix(predicate.node, in: scope)
            if let fragment { parts.append(fragment) }
            complete = isComplete
        }
        return SQLFetchCore(
            scope: scope, conditions: parts.isEmpty ? nil : SQLFragment.join(parts, with: "AND"),
            isPredicateComplete: complete)
    }

    /// A sort key as an SQL expression whose order is the sort key's, or `nil` to sort in memory.
    package static func sortExpression(
        _ key: SortKey, resolver: KeyPathResolver,
        scope: QueryScope
    ) -> (String, ColumnKind)? {
        guard let operand = resolver.resolve(key.keyPath, in: scope) else { return nil }
        switch operand {
        case .column(let expression, let kind):
            guard kind.isComparableInSQL, !(kind == .string && key.comparison == .localizedStandard) else { return nil }
            return (expression, kind)
        case .toMany(let toMany, let owner, let rest, _):
            guard
                case .aggregate(let expression, let kind, _)? = resolver.aggregate(
                    toMany, ownerAlias: owner, rest: rest, aliases: scope.aliases),
                !(kind == .string && key.comparison == .localizedStandard)
            else { return nil }
            return (expression, kind)
        default:
            return nil
        }
    }
}
