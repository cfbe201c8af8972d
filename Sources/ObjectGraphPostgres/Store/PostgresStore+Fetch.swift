import Foundation
import ObjectGraph
import PostgresNIO

extension PostgresStore {
    /// Runs a fetch as SQL; evaluates the predicate (or sorts) in memory over the SQL result only when they do not
    /// translate exactly. Results are sorted by the sort keys (nil first, as Core Data sorts), then by `Z_PK`.
    func performFetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        guard let core = SQLFetchCore.make(request, schema: schema, storeIdentifier: identifier, dialect: dialect)
        else { return [] }
        let scope = core.scope
        let resolver = KeyPathResolver(schema: schema, dialect: dialect)
        var orderBy: [String] = []
        var sortColumns: [(expression: String, kind: ColumnKind)] = []
        var isSortComplete = true
        for key in request.sortKeys {
            guard let (column, kind) = SQLFetchCore.sortExpression(key, resolver: resolver, scope: scope) else {
                isSortComplete = false
                break
            }
            var expression = column
            sortColumns.append((expression, kind))
            if key.comparison == .caseInsensitive, kind == .string {
                guard let folded = dialect.folded(expression, flags: 1) else {
                    isSortComplete = false
                    break
                }
                expression = folded
            }
            orderBy.append(expression + (key.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
        }
        let inMemory = !core.isPredicateComplete || !isSortComplete
        var reader: PostgresRecordReader?
        if request.includesValues || inMemory {
            let entities = request.entityNames.sorted().compactMap { schema.entities[$0] }
            let properties = inMemory ? nil : request.propertiesToFetch.map(Set.init)
            reader = PostgresRecordReader(
                schema: schema, entities: entities, alias: scope.alias,
                aliases: scope.aliases, properties: properties)
        }
        var select = ["\(scope.alias).Z_PK", "\(scope.alias).Z_ENT", "\(scope.alias).Z_OPT"] + (reader?.columns ?? [])
        let firstSortColumn = select.count
        if isSortComplete { select += sortColumns.map(\.expression) }
        var sql = "SELECT " + select.joined(separator: ", ") + " FROM " + scope.fromClause()
        var bindings: [SQLValue] = []
        if let conditions = core.conditions {
            sql += " WHERE " + conditions.sql
            bindings += conditions.bindings
        }
        sql += " ORDER BY " + ((isSortComplete ? orderBy : []) + ["\(scope.alias).Z_PK"]).joined(separator: ", ")
        if !inMemory, request.limit > 0 {
            sql += " LIMIT ?"
            bindings.append(.integer(Int64(request.limit)))
        }
        let ids = storeIDs()
        var results: [StoreFetchResult] = []
        let rows = try session.query(sql, bindings)
        results.reserveCapacity(rows.count)
        for row in rows {
            let cells = Array(row)
            let number = try cells[1].decode(Int64.self)
            guard let id = ids.id(entityNumber: number, key: try cells[0].decode(Int64.self)) else { continue }
            var sortValues: [(any Sendable)?] = []
            if isSortComplete {
                for (offset, column) in sortColumns.enumerated() {
                    sortValues.append(
                        SQLValueCoding.value(
                            try SQLValue(cells[firstSortColumn + offset]),
                            kind: column.kind))
                }
            }
            let record = try reader?.record(cells, id: id, entityNumber: number, ids: ids)
            results.append(StoreFetchResult(objectID: id, sortValues: sortValues, record: record))
        }
        if !inMemory { return results }
        return try SQLRecordView.finishInMemory(
            results.map { ($0.objectID, $0.record!) }, request: request,
            model: model
        ) { [unowned self] in try readRecords([$0]).first }
    }

    /// Counts with `COUNT(*)` when the predicate translates, else by fetching and evaluating.
    func performCount(_ request: StoreFetchRequest) throws -> Int {
        guard let core = SQLFetchCore.make(request, schema: schema, storeIdentifier: identifier, dialect: dialect)
        else { return 0 }
        guard core.isPredicateComplete else {
            var keysOnly = request
            keysOnly.sortKeys = []
            keysOnly.limit = 0
            keysOnly.includesValues = false
            return try performFetch(keysOnly).count
        }
        var sql = "SELECT COUNT(*) FROM " + core.scope.fromClause()
        if let conditions = core.conditions { sql += " WHERE " + conditions.sql }
        let rows = try session.query(sql, core.conditions?.bindings ?? [])
        return Int(try rows.first?[column: 0].decode(Int64.self) ?? 0)
    }

    /// The records of objects of this store, one query per entity; objects it does not hold are left out.
    func readRecords(_ objectIDs: [ManagedObjectID]) throws -> [StoreRecord] {
        var keysByEntity: [String: [Int64]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier && !id.isTemporaryID {
            keysByEntity[id.entityName, default: []].append(id.referenceKey)
        }
        var records: [StoreRecord] = []
        records.reserveCapacity(objectIDs.count)
        let ids = storeIDs()
        for (entityName, keys) in keysByEntity {
            guard let mapping = schema.entities[entityName], schema.hasTable(mapping.table.name) else { continue }
            let aliases = AliasCounter()
            let alias = aliases.next()
            let reader = PostgresRecordReader(
                schema: schema, entities: [mapping], alias: alias, aliases: aliases,
                properties: nil)
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            let select = (["\(alias).Z_PK", "\(alias).Z_ENT", "\(alias).Z_OPT"] + reader.columns).joined(
                separator: ", ")
            let table = quoted(mapping.table.name)
            let sql = "SELECT \(select) FROM \(table) \(alias) WHERE \(alias).Z_PK IN (\(marks)) AND \(alias).Z_ENT = ?"
            var bindings: [SQLValue] = keys.map { .integer($0) }
            bindings.append(.integer(mapping.number))
            for row in try session.query(sql, bindings) {
                let cells = Array(row)
                let key = try cells[0].decode(Int64.self)
                records.append(
                    try reader.record(
                        cells, id: ids.id(entityName: entityName, key: key),
                        entityNumber: mapping.number, ids: ids))
            }
        }
        return records
    }

    /// Allocates keys from the root entity's `Z_PRIMARYKEY.Z_MAX`: one `UPDATE … RETURNING`, which PostgreSQL runs
    /// atomically against every other process's allocations. Keys of a save that later fails leave gaps.
    func allocateKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore, message: "The PostgreSQL store was opened read-only.",
                context: ErrorContext(entityName: entityName, storeURL: url))
        }
        guard let mapping = schema.entities[entityName] else {
            throw StoreError(
                code: .entityNotInConfiguration,
                message: "The store has no table for '\(entityName)'.",
                context: ErrorContext(entityName: entityName, storeURL: url))
        }
        let root = schema.mapping(mapping.table.root).number
        let rows = try session.query(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), (SELECT COALESCE(MAX(Z_PK), 0) FROM "
                + "\(quoted(mapping.table.name)))) + ? WHERE Z_ENT = ? RETURNING Z_MAX",
            [.integer(Int64(count)), .integer(root)])
        guard let last = try rows.first?[column: 0].decode(Int64.self) else {
            throw StoreError(
                code: .corruptFile, message: "Z_PRIMARYKEY has no row for entity \(root).",
                context: ErrorContext(entityName: entityName, storeURL: url))
        }
        return (0..<Int64(count)).map { last - Int64(count) + 1 + $0 }
    }
}
