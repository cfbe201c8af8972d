import Foundation
import ObjectGraph

/// A fetch translated to one `SELECT`: what it selects, whether the predicate and the sort are fully in SQL,
/// and where the sort values are.
struct FetchQuery {
    var sql: String
    var bindings: [SQLValue]
    var isPredicateComplete: Bool
    var isSortComplete: Bool
    /// The result columns of the sort keys (when sorted in SQL).
    var sortColumns: [(index: Int32, kind: ColumnKind)]
    /// How to read records; `nil` when the query selects only keys.
    var reader: RecordReader?
    /// Whether the last binding is the `LIMIT`: a cached query serves every limit (``FetchQueryKey`` keeps only
    /// whether there is one), so a merged fetch at many offsets, which asks each store for `offset + limit`
    /// objects, compiles once.
    var bindsLimit = false

    /// The query with its `LIMIT` bound to `limit` (when it has one).
    func limited(to limit: Int) -> FetchQuery {
        guard bindsLimit, !bindings.isEmpty else { return self }
        var query = self
        query.bindings[query.bindings.count - 1] = .integer(Int64(limit))
        return query
    }

    /// The whole `SELECT`. Values are read when `includesValues` or when memory must finish the job.
    static func make(
        _ request: StoreFetchRequest, schema: SQLSchema, storeIdentifier: String, readers: inout RecordReaderCache
    ) -> FetchQuery? {
        guard let core = SQLFetchCore.make(request, schema: schema, storeIdentifier: storeIdentifier,
                                           dialect: SQLiteDialect())
        else { return nil }
        let scope = core.scope
        let resolver = KeyPathResolver(schema: schema, dialect: SQLiteDialect())
        var orderBy: [String] = []
        var sortExpressions: [(String, ColumnKind)] = []
        var sortComplete = true
        for key in request.sortKeys {
            guard let (expression, kind) = SQLFetchCore.sortExpression(key, resolver: resolver, scope: scope) else {
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
            // Unless it is limited to a few rows, a fetch reads to-many lists with one query each after the rows.
            reader = readers.reader(
                schema: schema, entities: entities, alias: scope.alias, aliases: scope.aliases, properties: properties,
                defersLists: !FetchQueryKey.readsFewRows(request))
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
        var bindings: [SQLValue] = []
        if let conditions = core.conditions {
            sql += " WHERE " + conditions.sql
            bindings += conditions.bindings
        }
        sql += " ORDER BY " + ((sortComplete ? orderBy : []) + ["\(scope.alias).Z_PK"]).joined(separator: ", ")
        let bindsLimit = !inMemory && request.limit > 0
        if bindsLimit {
            sql += " LIMIT ?"
            bindings.append(.integer(Int64(request.limit)))
        }
        return FetchQuery(sql: sql, bindings: bindings, isPredicateComplete: core.isPredicateComplete,
                          isSortComplete: sortComplete, sortColumns: sortColumns, reader: reader,
                          bindsLimit: bindsLimit)
    }

}

/// What makes two fetch requests compile to the same query.
struct FetchQueryKey: Hashable {
    let entity: String
    let entityNames: Set<String>
    let predicate: ObjectPredicate?
    let sortKeys: [SortKey]
    /// Whether the request has a limit, not its value (the query binds it).
    let isLimited: Bool
    /// Whether the limit is below ``SQLiteStore/fewestRowsForListQueries`` (to-many lists are read in the rows).
    let readsFewRows: Bool
    let propertiesToFetch: [String]?
    let includesValues: Bool

    init(_ request: StoreFetchRequest) {
        entity = request.entity.name
        entityNames = request.entityNames
        predicate = request.predicate
        sortKeys = request.sortKeys
        isLimited = request.limit > 0
        readsFewRows = Self.readsFewRows(request)
        propertiesToFetch = request.propertiesToFetch
        includesValues = request.includesValues
    }

    /// Whether a request is limited to fewer rows than ``SQLiteStore/fewestRowsForListQueries``.
    static func readsFewRows(_ request: StoreFetchRequest) -> Bool {
        request.limit > 0 && request.limit < SQLiteStore.fewestRowsForListQueries
    }
}
