import CSQLite
import Foundation
import ObjectGraph

extension SQLiteStore {
    /// The records of several objects: one `SELECT … WHERE Z_PK IN (…)` per table (split only past SQLite's limit
    /// on bound parameters), then one query per to-many relationship for the lists of all the rows read (none
    /// without `withLists`: those records leave the lists out).
    ///
    /// Objects the store does not hold, or whose row now belongs to another entity, are left out.
    func readRecords(_ objectIDs: [ManagedObjectID], withLists: Bool = true) throws -> [StoreRecord] {
        // The IDs by table, in the order the tables are first met. IDs sharing their names (as one store's IDs of
        // one entity do) find their table by the names' identity: comparing the store identifier and looking up the
        // entity and the table by name for each ID was a third of reading a few hundred records.
        var groups: [(table: String, ids: [ManagedObjectID])] = []
        var groupOfNames: [ObjectIdentifier: Int] = [:]
        var last: (names: ObjectIdentifier, group: Int)?
        for id in objectIDs {
            let names = id.sharedNames
            let group: Int
            if let names, let last, last.names == names {
                group = last.group
            } else {
                if let names, let known = groupOfNames[names] {
                    group = known
                } else {
                    group = groupIndex(of: id, in: &groups)
                    if let names { groupOfNames[names] = group }
                }
                if let names { last = (names, group) }
            }
            if group >= 0 { groups[group].ids.append(id) }
        }
        guard !groups.isEmpty else { return [] }
        let connection = try openConnection()
        var records: [StoreRecord] = []
        records.reserveCapacity(objectIDs.count)
        // A read that lists to-many destinations after the rows reads them all from one snapshot.
        let defersAny = withLists && groups.contains { $0.ids.count >= Self.fewestRowsForListQueries }
        try StoreErrorFactory.converting(url: url, doing: "reading a batch of objects") {
            try defersAny ? connection.readingOneSnapshot(readTables) : readTables()
        }
        func readTables() throws {
            let limit = try Self.parameterLimit(of: connection)
            for (name, ids) in groups {
                guard let table = schema.tables[name], schema.hasTable(name) else { continue }
                // Without lists, the query that leaves them for later reads the rows alone.
                let defers = !withLists || ids.count >= Self.fewestRowsForListQueries
                let (prefix, reader) = batchQuery(for: table, defersLists: defers)
                var start = 0
                while start < ids.count {
                    let chunk = ids[start..<min(start + limit, ids.count)]
                    start += chunk.count
                    try readChunk(
                        chunk, prefix: prefix, reader: reader, limit: limit, withLists: withLists, into: &records,
                        connection: connection)
                }
            }
        }
        return records
    }

    /// The group of `groups` for the table of an ID's entity (added when new); -1 for an ID of another store or of
    /// an entity the store does not map.
    private func groupIndex(of id: ManagedObjectID, in groups: inout [(table: String, ids: [ManagedObjectID])]) -> Int {
        guard id.storeIdentifier == identifier, let mapping = schema.entities[id.entityName] else { return -1 }
        if let index = groups.firstIndex(where: { $0.table == mapping.table.name }) { return index }
        groups.append((mapping.table.name, []))
        return groups.count - 1
    }

    /// The most keys one batch query binds (SQLite's own limit may be lower).
    static let largestBatchQuery = 32_766

    /// How many keys one statement on `connection` may bind: SQLite's limit, at most ``largestBatchQuery``.
    static func parameterLimit(of connection: SQLiteConnection) throws -> Int {
        max(1, min(Int(sqlite3_limit(try connection.openHandle(), SQLITE_LIMIT_VARIABLE_NUMBER, -1)),
                   largestBatchQuery))
    }

    /// `?, ?, …` for `count` keys, rounded up to a power of two (at least 8, at most `limit`; the rest are bound
    /// to NULL), so that batches of any size reuse a few cached statements.
    static func placeholders(for count: Int, limit: Int) -> String {
        var rounded = 8
        while rounded < count { rounded *= 2 }
        return Array(repeating: "?", count: min(rounded, limit)).joined(separator: ", ")
    }
    /// From how many rows on a read lists to-many destinations with one query per relationship after the rows
    /// rather than a subquery per row (measured: a thousand rows read 4x faster so, a few rows cost a statement more
    /// each); fetches limited to fewer rows keep the subqueries too.
    static let fewestRowsForListQueries = 64

    private func readChunk(
        _ ids: ArraySlice<ManagedObjectID>, prefix: String, reader: RecordReader, limit: Int, withLists: Bool,
        into records: inout [StoreRecord], connection: SQLiteConnection
    ) throws {
        let first = records.count
        var entityNumbers: [Int64] = []
        var wanted: [Int64: ManagedObjectID] = Dictionary(minimumCapacity: ids.count)
        var lowest = Int64.max
        var highest = Int64.min
        for id in ids {
            wanted[id.referenceKey] = id
            lowest = min(lowest, id.referenceKey)
            highest = max(highest, id.referenceKey)
        }
        let statement: SQLiteStatement
        if wanted.count >= Self.fewestKeysForRange, Self.keysAreClose(lowest, highest, count: wanted.count) {
            // Close keys (most of a table's rows, as a prefetch of rooms or speakers asks): one range, the rows
            // of keys not asked for skipped below. SQLite steps through a range with about a third of the
            // instructions it takes to look up each key of a long `IN` list (callgrind), and no list of
            // placeholders is built and bound.
            statement = try connection.prepare(prefix + "BETWEEN ? AND ?")
            try statement.bind(lowest, at: 1)
            try statement.bind(highest, at: 2)
        } else {
            statement = try connection.prepare(
                prefix + "IN (" + Self.placeholders(for: wanted.count, limit: limit) + ")")
            var index: Int32 = 1
            for key in wanted.keys {
                try statement.bind(key, at: index)
                index += 1
            }
        }
        defer { statement.reset() }
        // The mapping of the last entity seen: a chunk's IDs are mostly of one entity, and its name shares the
        // storage of the one before, so comparing is cheaper than hashing it.
        var last: (name: String, mapping: SQLEntityMapping)?
        while try statement.step() == .row {
            guard let id = wanted[statement.int64(at: 0)] else { continue }
            let mapping: SQLEntityMapping
            if let last, last.name == id.entityName {
                mapping = last.mapping
            } else {
                guard let found = schema.entities[id.entityName] else { continue }
                mapping = found
                last = (id.entityName, found)
            }
            guard statement.int64(at: 1) == mapping.number else { continue }
            records.append(
                reader.record(
                    statement, id: id, entityNumber: mapping.number, schema: schema,
                    ids: storeIDs()))
            entityNumbers.append(mapping.number)
        }
        statement.reset()
        guard withLists else { return }
        try reader.fillLists(
            &records, from: first, entityNumbers: entityNumbers, connection: connection,
            ids: storeIDs())
    }

    /// From how many keys on a batch read whose keys lie close together reads their range instead of a list.
    static let fewestKeysForRange = 16

    /// Whether `count` distinct keys from `lowest` to `highest` are close enough to read their range (skipping the
    /// rows of other keys in it) rather than list them: at most as many other rows as asked for.
    static func keysAreClose(_ lowest: Int64, _ highest: Int64, count: Int) -> Bool {
        highest - lowest < 2 * Int64(count)
    }

    /// The cached `SELECT … FROM table WHERE Z_PK ` of a table (an `IN` list or a range follows), reading the rows
    /// of any of its entities, with their to-many lists or leaving them to
    /// ``RecordReader/fillLists(_:from:entityNumbers:connection:ids:)``.
    private func batchQuery(for table: TableMapping, defersLists: Bool) -> (String, RecordReader) {
        let key = BatchQueryKey(table: table.name, defersLists: defersLists)
        if let cached = batchQueries[key] { return cached }
        let aliases = AliasCounter()
        let alias = aliases.next()
        let entities = table.entityNumbers.compactMap { schema.entityNames[$0].flatMap { schema.entities[$0] } }
        let reader = RecordReader(
            schema: schema, entities: entities, alias: alias, aliases: aliases, properties: nil,
            defersLists: defersLists)
        let prefix =
            "SELECT "
            + (["\(alias).Z_PK", "\(alias).Z_ENT", "\(alias).Z_OPT"] + reader.columns)
            .joined(separator: ", ") + " FROM \(quoted(table.name)) \(alias) WHERE \(alias).Z_PK "
        batchQueries[key] = (prefix, reader)
        return (prefix, reader)
    }
}

/// What a cached batch query reads: a table's rows, and whether their to-many lists come after them.
struct BatchQueryKey: Hashable {
    let table: String
    let defersLists: Bool
}
