import Foundation
import ObjectGraph

extension SQLiteStore {
    /// Allocates keys from the root entity's `Z_PRIMARYKEY.Z_MAX`, durably, in a transaction of its own (or a
    /// savepoint of an open one). Keys of a save that later fails are not reused: there may be gaps.
    func allocateKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        guard !isReadOnly else {
            throw StoreError(code: .readOnlyStore, message: "The SQLite store was opened read-only.",
                             context: ErrorContext(entityName: entityName, storeURL: url))
        }
        guard let mapping = schema.entities[entityName] else {
            throw StoreError(code: .entityNotInConfiguration, message: "The store has no table for '\(entityName)'.",
                             context: ErrorContext(entityName: entityName, storeURL: url))
        }
        let connection = try openConnection()
        let root = schema.mapping(mapping.table.root).number
        let last: Int64 = try StoreErrorFactory.converting(url: url, doing: "allocating object IDs") {
            try connection.inTransaction {
                let bump = try connection.prepare(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), (SELECT IFNULL(MAX(Z_PK), 0) FROM "
                        + "\(quoted(mapping.table.name)))) + ? WHERE Z_ENT = ?")
                try bump.bind([.integer(Int64(count)), .integer(root)])
                try bump.run()
                let read = try connection.prepare("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
                try read.bind(root, at: 1)
                defer { read.reset() }
                guard try read.step() == .row else {
                    throw StoreErrorFactory.corruptFile(url, "Z_PRIMARYKEY has no row for entity \(root)")
                }
                return read.int64(at: 0)
            }
        }
        return (0..<Int64(count)).map { last - Int64(count) + 1 + $0 }
    }

    /// Writes a save in one transaction left open: checks every version first (`Z_OPT`), then deletes, inserts,
    /// updates and relationship rows. The returned save commits or rolls it back.
    ///
    /// - Throws: ``StoreError/Code/mergeConflict`` listing every object whose `Z_OPT` differs from the version in
    ///   `changes` (or that is gone); the database is then unchanged. `.readOnlyStore`, `.io`, `.corruptFile`.
    func writeSave(_ changes: StoreChanges) throws -> any PreparedSave {
        guard !isReadOnly else {
            throw StoreError(code: .readOnlyStore, message: "The SQLite store was opened read-only.",
                             context: ErrorContext(storeURL: url), objectIDs: changes.objectIDs)
        }
        let connection = try openConnection()
        try StoreErrorFactory.converting(url: url, doing: "starting a save") {
            try connection.execute("BEGIN IMMEDIATE")
        }
        hasOpenSave = true
        do {
            try StoreErrorFactory.converting(url: url, doing: "saving") {
                try checkVersions(changes)
                sweepsExternalDataAfterCommit = mayOrphanExternalData(changes)
                try deleteRows(changes.deleted.map(\.objectID))
                try writeRows(changes.inserted, inserting: true)
                // Tables written to are asked about no more (their next fetch would find rows after asking).
                var lastEntity = ""
                for record in changes.inserted where !tablesKnownEmpty.isEmpty {
                    let entity = record.objectID.entityName
                    guard entity != lastEntity else { continue }
                    lastEntity = entity
                    if let table = schema.entities[entity]?.table.name { tablesKnownEmpty.remove(table) }
                }
                try writeRows(changes.updated, inserting: false)
                try writeToManyRows(changes.inserted, inserting: true)
                try writeToManyRows(changes.updated, inserting: false)
                try raiseKeyCounters(changes.inserted)
                if isTrackingPersistentHistory, let recording = changes.history {
                    try writeHistory(changes, recording: recording)
                }
            }
        } catch {
            rollBackSave()
            throw error
        }
        return SQLitePreparedSave(store: self)
    }

    /// Ends the open save transaction with `COMMIT`; rolls back and throws when that fails.
    func commitSave() throws {
        guard hasOpenSave else { return }
        do {
            try StoreErrorFactory.converting(url: url, doing: "committing a save") {
                try openConnection().execute("COMMIT")
            }
            hasOpenSave = false
            commitCount += 1
            if sweepsExternalDataAfterCommit {
                sweepsExternalDataAfterCommit = false
                sweepExternalData()
            }
        } catch {
            rollBackSave()
            throw error
        }
    }

    /// Ends the open save transaction with `ROLLBACK`.
    func rollBackSave() {
        guard hasOpenSave else { return }
        hasOpenSave = false
        sweepsExternalDataAfterCommit = false
        if let connection, connection.isInTransaction { try? connection.execute("ROLLBACK") }
    }

    private func checkVersions(_ changes: StoreChanges) throws {
        let expected = changes.updated.map { ($0.objectID, $0.version) }
            + changes.deleted.map { ($0.objectID, $0.version) }
        var conflicts: [ManagedObjectID] = []
        for (id, version) in expected {
            guard id.storeIdentifier == identifier, let mapping = schema.entities[id.entityName] else {
                conflicts.append(id)
                continue
            }
            let statement = try openConnection().prepare(
                "SELECT Z_OPT, Z_ENT FROM \(quoted(mapping.table.name)) WHERE Z_PK = ?")
            try statement.bind(id.referenceKey, at: 1)
            defer { statement.reset() }
            if try statement.step() != .row || statement.int64(at: 0) != version || statement.int64(at: 1) != mapping.number {
                conflicts.append(id)
            }
        }
        guard conflicts.isEmpty else {
            throw StoreError(code: .mergeConflict,
                             message: "\(conflicts.count) object(s) changed in the store since they were read; "
                                + "refresh them or set a merge policy on the context.",
                             context: ErrorContext(storeURL: url), objectIDs: conflicts)
        }
    }

    private func deleteRows(_ ids: [ManagedObjectID]) throws {
        let connection = try openConnection()
        for id in ids {
            guard let mapping = schema.entities[id.entityName] else { continue }
            let table = mapping.table
            let delete = try connection.prepare("DELETE FROM \(quoted(table.name)) WHERE Z_PK = ?")
            try delete.bind(id.referenceKey, at: 1)
            try delete.run()
            for join in schema.heldJoinTables where schema.hasTable(join.name) {
                var columns: [String] = []
                if join.ownerTable === table { columns.append(join.ownerColumn) }
                if join.otherTable === table { columns.append(join.otherColumn) }
                for column in columns {
                    let statement = try connection.prepare("DELETE FROM \(quoted(join.name)) WHERE \(quoted(column)) = ?")
                    try statement.bind(id.referenceKey, at: 1)
                    try statement.run()
                }
            }
        }
    }

    private func writeRows(_ records: [StoreRecord], inserting: Bool) throws {
        let connection = try openConnection()
        for (entityName, indices) in Self.groupedByEntity(records) {
            guard let mapping = schema.entities[entityName], schema.hasTable(mapping.table.name) else {
                let id = records[indices[0]].objectID
                throw StoreError(code: .entityNotInConfiguration,
                                 message: "The SQLite store has no table for '\(entityName)'.",
                                 context: ErrorContext(entityName: entityName, objectID: id, storeURL: url))
            }
            let writer = rowWriter(for: mapping, connection: connection)
            if inserting {
                try insertRows(records, indices, writer: writer, connection: connection)
                continue
            }
            // A record that names its changed properties updates only their columns, as Core Data does: a value
            // this store could not read (a file-backed future, an external file that is missing), read as nil,
            // then stays in its column when the object is saved for another change.
            var current: (sources: [Int]?, statement: SQLiteStatement)?
            for index in indices {
                let record = records[index]
                let sources = record.changedKeys.map(writer.sources(writing:))
                let statement: SQLiteStatement
                if let current, current.sources == sources {
                    statement = current.statement
                } else {
                    statement = try connection.prepare(sources.map(writer.updateSQL(writing:)) ?? writer.updateSQL)
                    current = (sources, statement)
                }
                try statement.bind(record.version + 1, at: 1)
                let next: Int32
                if let sources {
                    next = try writer.bindValues(of: record, sources: sources, to: statement, from: 2, schema: schema)
                } else {
                    next = try writer.bindValues(of: record, to: statement, from: 2, schema: schema)
                }
                try statement.bind(record.objectID.referenceKey, at: next)
                try statement.run()
            }
        }
    }

    /// The positions of the records of each entity, entities in the order they first appear. Rows name their keys,
    /// so the order of writes does not matter, and gathering a save's objects of one entity (sessions, say, made
    /// with their speakers and rooms in turn) lets them share multi-row `INSERT`s.
    private static func groupedByEntity(_ records: [StoreRecord]) -> [(entityName: String, indices: [Int])] {
        var groups: [(entityName: String, indices: [Int])] = []
        var groupOfName: [String: Int] = [:]
        var last: (id: ManagedObjectID, group: Int)?
        for index in records.indices {
            let id = records[index].objectID
            let group: Int
            if let last, last.id.hasSameNames(as: id) {
                group = last.group
            } else if let known = groupOfName[id.entityName] {
                group = known
            } else {
                group = groups.count
                // Most saves insert objects of one entity: the first group gets room for them all.
                groups.append((id.entityName, []))
                if group == 0 { groups[0].indices.reserveCapacity(records.count) }
                groupOfName[id.entityName] = group
            }
            groups[group].indices.append(index)
            last = (id, group)
        }
        return groups
    }

    /// Inserts the rows of one entity's records (at `indices`): whole statements of the writer's
    /// ``RowWriter/rowsPerInsert`` rows first, then the rest one by one. They all run in the save's transaction, so a
    /// failure writes none of them.
    private func insertRows(_ records: [StoreRecord], _ indices: [Int], writer: RowWriter,
                            connection: SQLiteConnection) throws {
        func bind(_ record: StoreRecord, to statement: SQLiteStatement, from first: Int32) throws {
            try statement.bind(record.objectID.referenceKey, at: first)
            try statement.bind(writer.number, at: first + 1)
            try statement.bind(record.version, at: first + 2)
            _ = try writer.bindValues(of: record, to: statement, from: first + 3, schema: schema)
        }
        var done = 0
        let perStatement = writer.rowsPerInsert
        if perStatement > 1, indices.count >= perStatement {
            let statement = try connection.prepare(writer.multiRowInsertSQL)
            let stride = Int32(writer.parametersPerRow)
            while indices.count - done >= perStatement {
                for row in 0..<perStatement {
                    try bind(records[indices[done + row]], to: statement, from: 1 + Int32(row) * stride)
                }
                try statement.run()
                done += perStatement
            }
        }
        guard done < indices.count else { return }
        let statement = try connection.prepare(writer.insertSQL)
        for index in indices[done...] {
            try bind(records[index], to: statement, from: 1)
            try statement.run()
        }
    }

    /// The cached row writer of an entity.
    private func rowWriter(for mapping: SQLEntityMapping, connection: SQLiteConnection) -> RowWriter {
        if let writer = rowWriters[mapping.number] { return writer }
        let writer = RowWriter(mapping: mapping, schema: schema, parameterLimit: connection.parameterLimit)
        rowWriters[mapping.number] = writer
        return writer
    }

    /// Order columns of ordered one-to-many relationships, and the owner side's join-table rows.
    private func writeToManyRows(_ records: [StoreRecord], inserting: Bool) throws {
        let connection = try openConnection()
        guard schema.entities.values.contains(where: { !$0.toManys.isEmpty }) else { return }
        var last: (name: String, mapping: SQLEntityMapping?)?
        // By position: a loop over the records would copy each one (its values) only to read a few fields.
        for index in records.indices {
            // Records come grouped by entity: look the mapping up once per run.
            let entityName = records[index].objectID.entityName
            if last?.name != entityName {
                last = (entityName, schema.entities[entityName])
            }
            guard let mapping = last?.mapping, !mapping.toManys.isEmpty else { continue }
            let record = records[index]
            for toMany in mapping.toManys {
                let ids = record[toMany.relationship.name] as? [ManagedObjectID] ?? []
                switch toMany.link {
                case .foreignKey(let table, let column):
                    guard let order = column.orderColumn, table.has(order), !ids.isEmpty else { continue }
                    let statement = try connection.prepare(
                        "UPDATE \(quoted(table.name)) SET \(quoted(order)) = ? WHERE Z_PK = ?")
                    for (position, id) in ids.enumerated() {
                        try statement.bind([.integer(Int64(position + 1)), .integer(id.referenceKey)])
                        try statement.run()
                    }
                case .join(let join, let isOwner):
                    guard isOwner, schema.hasTable(join.name) else { continue }
                    if !inserting {
                        let clear = try connection.prepare(
                            "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownerColumn)) = ?")
                        try clear.bind(record.objectID.referenceKey, at: 1)
                        try clear.run()
                    }
                    guard !ids.isEmpty else { continue }
                    let order = join.orderColumn.map { ", " + quoted($0) } ?? ""
                    let insert = try connection.prepare(
                        "INSERT OR REPLACE INTO \(quoted(join.name)) (\(quoted(join.ownerColumn)), "
                            + "\(quoted(join.otherColumn))\(order)) VALUES (?, ?\(join.orderColumn == nil ? "" : ", ?"))")
                    for (position, id) in ids.enumerated() {
                        var values: [SQLValue] = [.integer(record.objectID.referenceKey), .integer(id.referenceKey)]
                        if join.orderColumn != nil { values.append(.integer(Int64(position + 1))) }
                        try insert.bind(values)
                        try insert.run()
                    }
                }
            }
        }
    }

    /// Keeps `Z_MAX` above every inserted key (migrations insert keys that were not allocated here).
    private func raiseKeyCounters(_ records: [StoreRecord]) throws {
        var highest: [Int64: Int64] = [:]
        var last: (id: ManagedObjectID, root: Int64?)?
        var lastHighest: Int64 = 0
        for index in records.indices {
            let id = records[index].objectID
            if !(last?.id.hasSameNames(as: id) ?? false) {
                if let root = last?.root { highest[root] = max(highest[root] ?? 0, lastHighest) }
                let mapping = schema.entities[id.entityName]
                last = (id, mapping.map { schema.mapping($0.table.root).number })
                lastHighest = 0
            }
            lastHighest = max(lastHighest, id.referenceKey)
        }
        if let root = last?.root { highest[root] = max(highest[root] ?? 0, lastHighest) }
        let statement = try openConnection().prepare(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?")
        for (root, key) in highest {
            try statement.bind([.integer(key), .integer(root)])
            try statement.run()
        }
    }
}

/// The second phase of an SQLite save: `COMMIT` or `ROLLBACK` of the transaction ``SQLiteStore`` left open.
final class SQLitePreparedSave: PreparedSave {
    private let store: SQLiteStore

    init(store: SQLiteStore) {
        self.store = store
    }

    func commit() throws { try store.commitSave() }
    func abort() { store.rollBackSave() }
}
