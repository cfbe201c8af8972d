import Foundation
import ObjectGraph

extension SQLiteStore {
    /// Runs a fetch as SQL; evaluates the predicate (or sorts) in memory over the SQL result only when they do not
    /// translate exactly. Results are sorted by the sort keys, then by `Z_PK`.
    ///
    /// - Throws: the predicate's evaluation errors (as the in-memory stores throw them), or ``StoreError`` with
    ///   `.io`/`.corruptFile`.
    func performFetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        let connection = try openConnection()
        let doing = "fetching \(request.entity.name) objects"
        let key = FetchQueryKey(request)
        let query: FetchQuery
        if let cached = fetchQueries[key] {
            query = cached.limited(to: request.limit)
        } else {
            // Not compiled yet: a store without rows of the entity answers without compiling the request.
            let holdsNone = try StoreErrorFactory.converting(url: url, doing: doing) {
                try holdsNoRows(of: request, connection: connection)
            }
            if holdsNone { return [] }
            guard let made = makeFetchQuery(for: request, key: key) else { return [] }
            query = made
        }
        let isComplete = query.isPredicateComplete && query.isSortComplete
        // The rows are collected in a local of the closure (not a captured variable), so appending moves each one.
        let defersLists = !(query.reader?.layout.deferredLists.isEmpty ?? true)
        let results = try StoreErrorFactory.converting(url: url, doing: doing) {
            // The rows and their lists, read by several statements, from one snapshot.
            try defersLists ? connection.readingOneSnapshot(readRows) : readRows()
        }
        func readRows() throws -> [StoreFetchResult] {
            var results: [StoreFetchResult] = []
            let statement = try connection.prepare(query.sql)
            defer { statement.reset() }
            try statement.bind(query.bindings)
            let ids = storeIDs()
            let reader = query.reader
            let schema: SQLSchema = schema
            var entityNumbers: [Int64] = []
            while try statement.step() == .row {
                let number = statement.int64(at: 1)
                guard let id = ids.id(entityNumber: number, key: statement.int64(at: 0)) else { continue }
                let sortValues = query.sortColumns.isEmpty
                    ? [] : query.sortColumns.map { ValueCoding.read(statement, at: $0.index, kind: $0.kind) }
                results.append(StoreFetchResult(
                    objectID: id, sortValues: sortValues,
                    record: reader?.record(statement, id: id, entityNumber: number, schema: schema, ids: ids)))
                if defersLists { entityNumbers.append(number) }
            }
            statement.reset()
            if let reader, defersLists, !results.isEmpty {
                // The records are moved out and back (taken, not copied), so that each row is changed in place.
                var records: [StoreRecord] = []
                records.reserveCapacity(results.count)
                for index in results.indices { records.append(results[index].record.take()!) }
                try reader.fillLists(&records, entityNumbers: entityNumbers, connection: connection, ids: ids)
                for index in results.indices.reversed() { results[index].record = records.removeLast() }
            }
            return results
        }
        if isComplete { return results }
        // The query read every record (the reader reads all values when memory must finish the job). A predicate
        // SQL applied whole is not evaluated again: memory sorts (and limits) only.
        let rows = results.map { ($0.objectID, $0.record!) }
        var remaining = request
        if query.isPredicateComplete { remaining.predicate = nil }
        return try SQLRecordView.finishInMemory(rows, request: remaining, model: model) { [unowned self] in
            try readRecord($0)
        }
    }

    /// The maker of this store's IDs (kept until the store's identifier changes).
    func storeIDs() -> StoreIDs {
        if let made = madeIDs, made.storeIdentifier == identifier { return made }
        let made = StoreIDs(schema: schema, storeIdentifier: identifier)
        madeIDs = made
        return made
    }

    /// Compiles a request's query and caches it under `key` (the request's shape and constants; at most 128 of them),
    /// its `LIMIT` bound to the request's.
    private func makeFetchQuery(for request: StoreFetchRequest, key: FetchQueryKey) -> FetchQuery? {
        guard let query = FetchQuery.make(request, schema: schema, storeIdentifier: identifier, readers: &recordReaders)
        else { return nil }
        if fetchQueries.count >= 128 { fetchQueries.removeAll(keepingCapacity: true) }
        fetchQueries[key] = query
        return query
    }

    /// Whether the store holds no rows of a request's entities, asked when their tables were empty when last seen:
    /// a fetch or count of an entity the store has none of then reads one row of each table in place of compiling
    /// and running the request. The daemon's personal store holds no sessions as a rule and is asked for them by
    /// every request for sessions; `SessionsAt` at a new moment is a new predicate, whose SQL was compiled for each
    /// request to find nothing (perf: a fifth of the request's work, 45 µs).
    ///
    /// The answer always comes from the file, one statement in place of the request's: what is known (tables empty
    /// at opening, see ``findEmptyTables()``) only says when to ask. A table found with rows (another connection's
    /// or this store's save wrote some) is no longer asked about, and the request runs.
    func holdsNoRows(of request: StoreFetchRequest, connection: SQLiteConnection) throws -> Bool {
        guard !tablesKnownEmpty.isEmpty else { return false }
        var tables: [String] = []
        for name in request.entityNames {
            guard let table = schema.entities[name]?.table.name, tablesKnownEmpty.contains(table) else { return false }
            if !tables.contains(table) { tables.append(table) }
        }
        for table in tables where try Self.holdsRows(table, connection: connection) {
            tablesKnownEmpty.remove(table)
            return false
        }
        return !tables.isEmpty
    }

    /// Whether a table has a row: one row read, `SELECT 1 FROM table LIMIT 1`.
    private static func holdsRows(_ table: String, connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM \(quoted(table)) LIMIT 1")
        defer { statement.reset() }
        return try statement.step() == .row
    }

    /// Notes which of the store's tables hold no rows (at opening): the tables ``holdsNoRows(of:connection:)`` asks
    /// about.
    func findEmptyTables() throws {
        let connection = try openConnection()
        tablesKnownEmpty = []
        for table in schema.heldTables where schema.hasTable(table.name) {
            if try !Self.holdsRows(table.name, connection: connection) { tablesKnownEmpty.insert(table.name) }
        }
    }

    /// Counts with `COUNT(*)` when the predicate translates, else by fetching and evaluating.
    func performCount(_ request: StoreFetchRequest) throws -> Int {
        let connection = try openConnection()
        let holdsNone = try StoreErrorFactory.converting(url: url, doing: "counting \(request.entity.name) objects") {
            try holdsNoRows(of: request, connection: connection)
        }
        if holdsNone { return 0 }
        let made = SQLFetchCore.make(request, schema: schema, storeIdentifier: identifier, dialect: SQLiteDialect())
        guard let core = made else { return 0 }
        guard core.isPredicateComplete else {
            var keysOnly = request
            keysOnly.sortKeys = []
            keysOnly.limit = 0
            keysOnly.includesValues = false
            return try performFetch(keysOnly).count
        }
        return try StoreErrorFactory.converting(url: url, doing: "counting \(request.entity.name) objects") {
            var sql = "SELECT COUNT(*) FROM " + core.scope.fromClause()
            if let conditions = core.conditions { sql += " WHERE " + conditions.sql }
            let statement = try connection.prepare(sql)
            defer { statement.reset() }
            try statement.bind(core.conditions?.bindings ?? [])
            _ = try statement.step()
            return Int(statement.int64(at: 0))
        }
    }

    /// The record of one object: its row with its to-many relationships, in one query.
    func readRecord(_ objectID: ManagedObjectID) throws -> StoreRecord? {
        guard objectID.storeIdentifier == identifier, let mapping = schema.entities[objectID.entityName] else {
            return nil
        }
        let connection = try openConnection()
        guard schema.hasTable(mapping.table.name) else { return nil }
        let (sql, reader) = recordQuery(for: mapping)
        return try StoreErrorFactory.converting(url: url, doing: "reading an object") {
            let statement = try connection.prepare(sql)
            try statement.bind(objectID.referenceKey, at: 1)
            defer { statement.reset() }
            guard try statement.step() == .row, statement.int64(at: 1) == mapping.number else { return nil }
            return reader.record(statement, id: objectID, entityNumber: mapping.number, schema: schema,
                                 ids: storeIDs())
        }
    }

    /// The cached `SELECT … WHERE Z_PK = ?` of an entity.
    private func recordQuery(for mapping: SQLEntityMapping) -> (String, RecordReader) {
        if let cached = recordQueries[mapping.number] { return cached }
        let aliases = AliasCounter()
        let alias = aliases.next()
        let reader = RecordReader(schema: schema, entities: [mapping], alias: alias, aliases: aliases, properties: nil)
        let sql = "SELECT " + (["\(alias).Z_PK", "\(alias).Z_ENT", "\(alias).Z_OPT"] + reader.columns)
            .joined(separator: ", ") + " FROM \(quoted(mapping.table.name)) \(alias) WHERE \(alias).Z_PK = ?"
        recordQueries[mapping.number] = (sql, reader)
        return (sql, reader)
    }

    /// Every record of the store's entities (for migration to another store).
    func readAllRecords() throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        for table in schema.heldTables where schema.hasTable(table.name) {
            let request = StoreFetchRequest(entity: table.root, entityNames: Set(table.root.selfAndDescendants.map(\.name)),
                                            predicate: nil, sortKeys: [], limit: 0)
            records += try performFetch(request).compactMap(\.record)
        }
        return records
    }
}

extension SQLiteStore {
    /// Whether a predicate over an entity compiles to SQL as a whole (used by tests and diagnostics).
    func translatesToSQL(_ predicate: ObjectPredicate, entity: EntityDescription) -> Bool {
        let request = StoreFetchRequest(entity: entity, entityNames: Set(entity.selfAndDescendants.map(\.name)),
                                        predicate: predicate, sortKeys: [], limit: 0)
        let core = SQLFetchCore.make(request, schema: schema, storeIdentifier: identifier, dialect: SQLiteDialect())
        return core?.isPredicateComplete ?? false
    }
}
