import Foundation
import ObjectGraph
import PostgresNIO

extension PostgresStore {
    /// The channel `NOTIFY` announces each save's change token on: one per store, named after its UUID (which
    /// every process opening the schema reads), within PostgreSQL's 63-byte names.
    var notificationChannel: String { "objectgraph_" + identifier.lowercased().filter { $0 != "-" } }

    /// The payload of a save's `NOTIFY`: the change token, a space, and this store instance's ``origin``, so that
    /// the instance's own listener tells its own saves from other coordinators'.
    func notification(token: Int64) -> String { "\(token) \(origin)" }

    /// Writes a save in one transaction left open: locks and checks every version first (`Z_OPT`, `FOR UPDATE`),
    /// then deletes, inserts, updates and relationship rows, bumps the change token and queues its `NOTIFY`. The
    /// returned save commits or rolls it back.
    ///
    /// - Throws: `StoreError/Code/mergeConflict` listing every object whose `Z_OPT` differs from the version in
    ///   `changes` (or that is gone); nothing is then written. `.readOnlyStore`, `.io`.
    func writeSave(_ changes: StoreChanges) throws -> any PreparedSave {
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore, message: "The PostgreSQL store was opened read-only.",
                context: ErrorContext(storeURL: url), objectIDs: changes.objectIDs)
        }
        try converting("starting a save") { try session.begin() }
        do {
            try converting("saving") {
                try checkVersions(changes)
                try deleteRows(changes.deleted.map(\.objectID))
                try writeRows(changes.inserted, inserting: true)
                try writeRows(changes.updated, inserting: false)
                try writeToManyRows(changes.inserted, inserting: true)
                try writeToManyRows(changes.updated, inserting: false)
                try raiseKeyCounters(changes.inserted)
                let number = try announce()
                openSaveToken.withLock { $0 = number }
                if isTrackingPersistentHistory, let recording = changes.history {
                    try writeHistory(changes, recording: recording, number: number)
                }
            }
        } catch {
            openSaveToken.withLock { $0 = nil }
            session.rollback()
            throw error
        }
        return PostgresPreparedSave(store: self)
    }

    /// `COMMIT` of the open save: the save is acknowledged only once PostgreSQL committed it.
    ///
    /// The listener learns the save's change token as this instance's own before the `COMMIT`: once committed, a
    /// listener that (re)connects and reads the token must not announce it as another coordinator's save (its
    /// `NOTIFY` may have gone out before `LISTEN` was on, so the payload's origin cannot tell it). A `COMMIT` that
    /// fails takes the token back.
    func commitSave() throws {
        let token = openSaveToken.withLock { token in
            defer { token = nil }
            return token
        }
        let listening = listener.withLock { $0 }
        if let token { listening?.willCommitOwnSave(token: token) }
        do {
            try converting("committing a save") { try session.commit() }
        } catch {
            if let token { listening?.ownSaveDidNotCommit(token: token) }
            throw error
        }
    }

    /// `ROLLBACK` of the open save.
    func rollBackSave() {
        openSaveToken.withLock { $0 = nil }
        session.rollback()
    }

    /// Locks the rows of updated and deleted objects and compares their versions with the ones the save read.
    private func checkVersions(_ changes: StoreChanges) throws {
        var expected: [ManagedObjectID: Int64] = [:]
        for record in changes.updated { expected[record.objectID] = record.version }
        for (id, version) in changes.deleted { expected[id] = version }
        var conflicts: [ManagedObjectID] = []
        var byTable: [String: [ManagedObjectID]] = [:]
        for id in expected.keys {
            guard id.storeIdentifier == identifier, let mapping = schema.entities[id.entityName] else {
                conflicts.append(id)
                continue
            }
            byTable[mapping.table.name, default: []].append(id)
        }
        for (table, ids) in byTable {
            var found: [Int64: (version: Int64, entity: Int64)] = [:]
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let rows = try session.query(
                "SELECT Z_PK, Z_OPT, Z_ENT FROM \(quoted(table)) WHERE Z_PK IN (\(marks)) FOR UPDATE",
                ids.map { .integer($0.referenceKey) })
            for row in rows {
                let cells = Array(row)
                found[try cells[0].decode(Int64.self)] = (
                    try cells[1].decode(Int64.self), try cells[2].decode(Int64.self)
                )
            }
            for id in ids {
                guard let stored = found[id.referenceKey], stored.version == expected[id],
                    stored.entity == schema.entities[id.entityName]?.number
                else {
                    conflicts.append(id)
                    continue
                }
            }
        }
        guard conflicts.isEmpty else {
            throw StoreError(
                code: .mergeConflict,
                message: "\(conflicts.count) object(s) changed in the store since they were read; "
                    + "refresh them or set a merge policy on the context.",
                context: ErrorContext(storeURL: url), objectIDs: conflicts)
        }
    }

    private func deleteRows(_ ids: [ManagedObjectID]) throws {
        var byTable: [String: (TableMapping, [Int64])] = [:]
        for id in ids {
            guard let mapping = schema.entities[id.entityName] else { continue }
            byTable[mapping.table.name, default: (mapping.table, [])].1.append(id.referenceKey)
        }
        for (name, (table, keys)) in byTable {
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            let bindings = keys.map { SQLValue.integer($0) }
            try session.query("DELETE FROM \(quoted(name)) WHERE Z_PK IN (\(marks))", bindings)
            for join in schema.heldJoinTables where schema.hasTable(join.name) {
                var columns: [String] = []
                if join.ownerTable === table { columns.append(join.ownerColumn) }
                if join.otherTable === table { columns.append(join.otherColumn) }
                for column in columns {
                    try session.query(
                        "DELETE FROM \(quoted(join.name)) WHERE \(quoted(column)) IN (\(marks))", bindings)
                }
            }
        }
    }

    private func writeRows(_ records: [StoreRecord], inserting: Bool) throws {
        var order: [String] = []
        var byEntity: [String: [Int]] = [:]
        for index in records.indices {
            let name = records[index].objectID.entityName
            if byEntity[name] == nil { order.append(name) }
            byEntity[name, default: []].append(index)
        }
        for entityName in order {
            let indices = byEntity[entityName]!
            guard let mapping = schema.entities[entityName], schema.hasTable(mapping.table.name) else {
                throw StoreError(
                    code: .entityNotInConfiguration,
                    message: "The PostgreSQL store has no table for '\(entityName)'.",
                    context: ErrorContext(
                        entityName: entityName, objectID: records[indices[0]].objectID,
                        storeURL: url))
            }
            let writer = PostgresRowWriter(mapping: mapping)
            // Inserts carry the key, entity number and version; updates the key and the next version. Both are
            // written in chunks of as many rows as the statement's parameter limit allows.
            let rowsPerStatement = inserting ? writer.rowsPerInsert : writer.rowsPerUpdate
            var start = 0
            while start < indices.count {
                let chunk = indices[start..<min(indices.count, start + rowsPerStatement)]
                var bindings: [SQLValue] = []
                bindings.reserveCapacity(chunk.count * writer.parametersPerRow)
                for index in chunk {
                    let record = records[index]
                    let key = SQLValue.integer(record.objectID.referenceKey)
                    if inserting {
                        bindings += [key, .integer(mapping.number), .integer(record.version)]
                    } else {
                        bindings += [key, .integer(record.version + 1)]
                    }
                    bindings += try writer.values(of: record, schema: schema)
                }
                let sql = inserting ? writer.insertSQL(rows: chunk.count) : writer.updateSQL(rows: chunk.count)
                try session.query(sql, bindings)
                start += chunk.count
            }
        }
    }

    /// Order columns of ordered one-to-many relationships (one `UPDATE` per column for up to 1,000 rows), and
    /// the owner side's join-table rows.
    private func writeToManyRows(_ records: [StoreRecord], inserting: Bool) throws {
        guard schema.entities.values.contains(where: { !$0.toManys.isEmpty }) else { return }
        // The position of each destination key by order column (a key listed twice keeps its last position).
        var orders: [OrderColumn: [Int64: Int64]] = [:]
        for record in records {
            guard let mapping = schema.entities[record.objectID.entityName], !mapping.toManys.isEmpty else { continue }
            for toMany in mapping.toManys {
                let ids = record[toMany.relationship.name] as? [ManagedObjectID] ?? []
                switch toMany.link {
                case .foreignKey(let table, let column):
                    guard let order = column.orderColumn, table.has(order), !ids.isEmpty else { continue }
                    let key = OrderColumn(table: table.name, column: order)
                    for (position, id) in ids.enumerated() {
                        orders[key, default: [:]][id.referenceKey] = Int64(position + 1)
                    }
                case .join(let join, let isOwner):
                    guard isOwner, schema.hasTable(join.name) else { continue }
                    if !inserting {
                        try session.query(
                            "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownerColumn)) = ?",
                            [.integer(record.objectID.referenceKey)])
                    }
                    guard !ids.isEmpty else { continue }
                    var columns = [quoted(join.ownerColumn), quoted(join.otherColumn)]
                    if let order = join.orderColumn { columns.append(quoted(order)) }
                    let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
                    var bindings: [SQLValue] = []
                    for (position, id) in ids.enumerated() {
                        bindings += [.integer(record.objectID.referenceKey), .integer(id.referenceKey)]
                        if join.orderColumn != nil { bindings.append(.integer(Int64(position + 1))) }
                    }
                    let conflict =
                        join.orderColumn.map { "DO UPDATE SET \(quoted($0)) = EXCLUDED.\(quoted($0))" }
                        ?? "DO NOTHING"
                    try session.query(
                        "INSERT INTO \(quoted(join.name)) (\(columns.joined(separator: ", "))) VALUES "
                            + Array(repeating: row, count: ids.count).joined(separator: ", ")
                            + " ON CONFLICT (\(columns[0]), \(columns[1])) \(conflict)", bindings)
                }
            }
        }
        // In key order, so that concurrent saves lock the rows they share in the same order.
        for key in orders.keys.sorted(by: { ($0.table, $0.column) < ($1.table, $1.column) }) {
            let positions = orders[key]!.sorted { $0.key < $1.key }
            var start = 0
            while start < positions.count {
                let chunk = positions[start..<min(positions.count, start + 1000)]
                try session.query(
                    "UPDATE \(quoted(key.table)) AS t SET \(quoted(key.column)) = v.position FROM (VALUES "
                        + "(?::BIGINT, ?::BIGINT)" + String(repeating: ", (?, ?)", count: chunk.count - 1)
                        + ") AS v(pk, position) WHERE t.Z_PK = v.pk",
                    chunk.flatMap { [SQLValue.integer($0.key), .integer($0.value)] })
                start += chunk.count
            }
        }
    }

    /// An order column (`Z_FOK_…`) of a table.
    private struct OrderColumn: Hashable {
        let table: String
        let column: String
    }

    /// Keeps `Z_MAX` above every inserted key (migrations insert keys that were not allocated here).
    private func raiseKeyCounters(_ records: [StoreRecord]) throws {
        var highest: [Int64: Int64] = [:]
        for record in records {
            guard let mapping = schema.entities[record.objectID.entityName] else { continue }
            let root = schema.mapping(mapping.table.root).number
            highest[root] = max(highest[root] ?? 0, record.objectID.referenceKey)
        }
        for (root, key) in highest {
            try session.query(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), ?) WHERE Z_ENT = ?",
                [.integer(key), .integer(root)])
        }
    }

    /// Bumps the change token and queues its `NOTIFY`, both part of the save's transaction (delivered only if it
    /// commits). The token row is locked until the commit, which orders the saves of every process.
    ///
    /// Returns the new token, which numbers the save's history transaction: the row stays locked until the save
    /// commits, so tokens follow the order of commits.
    private func announce() throws -> Int64 {
        let rows = try session.query(
            "UPDATE Z_METADATA SET Z_TOKEN = Z_TOKEN + 1 WHERE Z_VERSION = 1 RETURNING Z_TOKEN")
        guard let token = try rows.first?[column: 0].decode(Int64.self) else {
            throw StoreError(
                code: .corruptFile, message: "The PostgreSQL schema \(location.schema) has no metadata row.",
                context: ErrorContext(storeURL: url))
        }
        try session.query("SELECT pg_notify(?, ?)", [.text(notificationChannel), .text(notification(token: token))])
        return token
    }
}

/// The second phase of a PostgreSQL save: `COMMIT` or `ROLLBACK` of the transaction ``PostgresStore`` left open.
final class PostgresPreparedSave: PreparedSave {
    private let store: PostgresStore

    init(store: PostgresStore) {
        self.store = store
    }

    func commit() throws { try store.commitSave() }
    func abort() { store.rollBackSave() }
}

/// The `INSERT` and `UPDATE` of one entity's rows, with the values a record binds.
final class PostgresRowWriter {  // a class: it keeps the row positions of the last keys it saw
    private let table: String
    private let columns: [SQLWrittenColumn]
    /// The type of each column, for the casts of an `UPDATE`'s `VALUES` list.
    private let types: [String]
    /// The row position of each column's value in records laid out by `keys` (-1 for none).
    private var rowPositions: (keys: RecordKeys, positions: [Int])?

    /// The parameters each inserted row binds: `Z_PK`, `Z_ENT`, `Z_OPT`, then the columns (an updated row binds
    /// `Z_PK`, `Z_OPT`, then the columns).
    var parametersPerRow: Int { 3 + columns.count }
    /// Rows per multi-row `INSERT`, within PostgreSQL's 65,535 parameters.
    var rowsPerInsert: Int { max(1, min(1000, 65_535 / parametersPerRow)) }
    /// Rows per `UPDATE … FROM (VALUES …)`.
    var rowsPerUpdate: Int { rowsPerInsert }

    init(mapping: SQLEntityMapping) {
        table = quoted(mapping.table.name)
        columns = mapping.writtenColumns
        let declared = Dictionary(
            mapping.table.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        types = columns.map { PostgresSchema.castType(declared: declared[$0.name] ?? "TEXT") }
    }

    /// A multi-row `INSERT` of `rows` rows.
    func insertSQL(rows: Int) -> String {
        let row = "(?, ?, ?" + String(repeating: ", ?", count: columns.count) + ")"
        return "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT" + columns.map { ", " + quoted($0.name) }.joined()
            + ") VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// An `UPDATE` of `rows` rows from a `VALUES` list of `(Z_PK, new Z_OPT, columns…)`; the first row's casts
    /// type every column (a column of NULLs alone would be text).
    func updateSQL(rows: Int) -> String {
        let first = "(?::BIGINT, ?::BIGINT" + types.map { ", ?::\($0)" }.joined() + ")"
        let row = "(?, ?" + String(repeating: ", ?", count: columns.count) + ")"
        let names = columns.indices.map { "c\($0)" }
        return "UPDATE \(table) AS t SET Z_OPT = v.opt"
            + zip(columns, names).map { ", \(quoted($0.name)) = v.\($1)" }.joined()
            + " FROM (VALUES " + ([first] + Array(repeating: row, count: rows - 1)).joined(separator: ", ")
            + ") AS v(pk, opt" + names.map { ", " + $0 }.joined() + ") WHERE t.Z_PK = v.pk"
    }

    /// The column values of a record, in column order: by position from a record laid out by keys (what a
    /// context saves), else by name.
    func values(of record: StoreRecord, schema: SQLSchema) throws -> [SQLValue] {
        if let (keys, row) = record.row {
            let positions = positions(for: keys)
            return try columns.indices.map { index in
                let position = positions[index]
                return try value(position >= 0 ? row[position] : nil, of: columns[index], schema: schema)
            }
        }
        return try columns.map { try value(record[$0.key], of: $0, schema: schema) }
    }

    /// The row position of each column's value in records laid out by `keys`.
    private func positions(for keys: RecordKeys) -> [Int] {
        if let cached = rowPositions, cached.keys === keys { return cached.positions }
        let positions = columns.map { keys.position(of: $0.key) ?? -1 }
        rowPositions = (keys, positions)
        return positions
    }

    /// One column's value (NULL for `nil`).
    private func value(_ value: (any Sendable)?, of column: SQLWrittenColumn, schema: SQLSchema) throws -> SQLValue {
        guard let value else { return .null }
        switch column.source {
        case .attribute(let kind):
            let stored = try SQLValueCoding.sqlValue(value, kind: kind)
            // Decimals are text here (SQLite keeps long ones as the blob of their text).
            if kind == .decimal, case .blob(let data) = stored {
                return .text(String(decoding: data, as: UTF8.self))
            }
            return stored
        case .compositeElement(let kind):
            let element = SQLWrittenColumn(name: column.name, key: column.key, source: .attribute(kind))
            let elementValue = CompositeAttributeDescription.value(at: column.elementPath, in: value)
            return try self.value(elementValue, of: element, schema: schema)
        case .foreignKey:
            return (value as? ManagedObjectID).map { .integer($0.referenceKey) } ?? .null
        case .foreignEntity:
            guard let id = value as? ManagedObjectID, let mapping = schema.entities[id.entityName] else {
                return .null
            }
            return .integer(mapping.number)
        }
    }
}
