import Foundation
import ObjectGraph

/// A fetch translated to one `SELECT`: what it selects, whether the predicate and the sort are fully in SQL,
/// and where the sort values are.
struct FetchQuery {
    var sql: String
    var bindings: [SQLiteValue]
    var isPredicateComplete: Bool
    var isSortComplete: Bool
    /// The result columns of the sort keys (when sorted in SQL).
    var sortColumns: [(index: Int32, kind: ColumnKind)]
    /// How to read records; `nil` when the query selects only keys.
    var reader: RecordReader?

    /// The `FROM` and `WHERE` shared by fetches and counts.
    struct Core {
        let scope: QueryScope
        let conditions: SQLFragment?
        let isPredicateComplete: Bool
    }

    /// Compiles the restriction to the request's entities and the predicate's translatable prefix.
    static func core(_ request: StoreFetchRequest, schema: SQLiteSchema, storeIdentifier: String) -> Core? {
        let mapping = schema.mapping(request.entity)
        guard schema.hasTable(mapping.table.name) else { return nil }
        let numbers = request.entityNames.compactMap { schema.entities[$0]?.number }.sorted()
        guard !numbers.isEmpty else { return nil }
        let aliases = AliasCounter()
        let scope = QueryScope(alias: aliases.next(), mapping: mapping, aliases: aliases)
        var parts: [SQLFragment] = []
        if numbers.count < mapping.table.entityNumbers.count {
            parts.append(SQLFragment("\(scope.alias).Z_ENT IN (" + numbers.map(String.init).joined(separator: ", ")
                + ")"))
        }
        var complete = true
        if let predicate = request.predicate {
            let compiler = PredicateSQLCompiler(schema: schema, storeIdentifier: storeIdentifier)
            let (fragment, isComplete) = compiler.compilePrefix(predicate.node, in: scope)
            if let fragment { parts.append(fragment) }
            complete = isComplete
        }
        return Core(scope: scope, conditions: parts.isEmpty ? nil : SQLFragment.join(parts, with: "AND"),
                    isPredicateComplete: complete)
    }

    /// The whole `SELECT`. Values are read when `includesValues` or when memory must finish the job.
    static func make(_ request: StoreFetchRequest, schema: SQLiteSchema, storeIdentifier: String) -> FetchQuery? {
        guard let core = core(request, schema: schema, storeIdentifier: storeIdentifier) else { return nil }
        let scope = core.scope
        let resolver = KeyPathResolver(schema: schema)
        var orderBy: [String] = []
        var sortExpressions: [(String, ColumnKind)] = []
        var sortComplete = true
        for key in request.sortKeys {
            guard let (expression, kind) = sortExpression(key, resolver: resolver, scope: scope) else {
                sortComplete = false
                break
            }
            let folded = key.comparison == .caseInsensitive && kind == .string ? "og_fold(\(expression), 1)" : expression
            orderBy.append(folded + (key.ascending ? " ASC" : " DESC"))
            sortExpressions.append((expression, kind))
        }
        let inMemory = !core.isPredicateComplete || !sortComplete
        var reader: RecordReader?
        if request.includesValues || inMemory {
            let entities = request.entityNames.sorted().compactMap { schema.entities[$0] }
            let properties = inMemory ? nil : request.propertiesToFetch.map(Set.init)
            reader = RecordReader(schema: schema, entities: entities, alias: scope.alias, aliases: scope.aliases,
                                  properties: properties)
        }
        var select = ["\(scope.alias).Z_PK", "\(scope.alias).Z_ENT", "\(scope.alias).Z_OPT"] + (reader?.columns ?? [])
        var sortColumns: [(Int32, ColumnKind)] = []
        if sortComplete {
            for (expression, kind) in sortExpressions {
                sortColumns.append((Int32(select.count), kind))
                select.append(expression)
            }
        }
        var sql = "SELECT " + select.joined(separator: ", ") + " FROM " + scope.fromClause()
        var bindings: [SQLiteValue] = []
        if let conditions = core.conditions {
            sql += " WHERE " + conditions.sql
            bindings += conditions.bindings
        }
        sql += " ORDER BY " + ((sortComplete ? orderBy : []) + ["\(scope.alias).Z_PK"]).joined(separator: ", ")
        if !inMemory, request.limit > 0 {
            sql += " LIMIT ?"
            bindings.append(.integer(Int64(request.limit)))
        }
        return FetchQuery(sql: sql, bindings: bindings, isPredicateComplete: core.isPredicateComplete,
                          isSortComplete: sortComplete, sortColumns: sortColumns, reader: reader)
    }

    /// A sort key as an SQL expression whose order is the sort key's, or `nil` to sort in memory.
    private static func sortExpression(_ key: SortKey, resolver: KeyPathResolver,
                                       scope: QueryScope) -> (String, ColumnKind)? {
        guard let operand = resolver.resolve(key.keyPath, in: scope) else { return nil }
        switch operand {
        case .column(let expression, let kind):
            guard kind.isComparableInSQL, !(kind == .string && key.comparison == .localizedStandard) else { return nil }
            return (expression, kind)
        case .toMany(let toMany, let owner, let rest, _):
            guard case .aggregate(let expression, let kind, _)? = resolver.aggregate(
                toMany, ownerAlias: owner, rest: rest, aliases: scope.aliases),
                !(kind == .string && key.comparison == .localizedStandard)
            else { return nil }
            return (expression, kind)
        default:
            return nil
        }
    }
}

/// What makes two fetch requests compile to the same query.
struct FetchQueryKey: Hashable {
    let entity: String
    let entityNames: Set<String>
    let predicate: ObjectPredicate?
    let sortKeys: [SortKey]
    let limit: Int
    let propertiesToFetch: [String]?
    let includesValues: Bool

    init(_ request: StoreFetchRequest) {
        entity = request.entity.name
        entityNames = request.entityNames
        predicate = request.predicate
        sortKeys = request.sortKeys
        limit = request.limit
        propertiesToFetch = request.propertiesToFetch
        includesValues = request.includesValues
    }
}
