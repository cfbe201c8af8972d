import Foundation
import ObjectGraph
import PostgresNIO

/// The persistent history tables of a PostgreSQL store: one row per transaction, one per changed object, and the
/// number of the last deleted transaction. Written in the save's own transaction, so a save and its history commit
/// or roll back together.
///
/// A transaction's number is the store's change token of its save (`Z_METADATA.Z_TOKEN`, incremented under the
/// row's lock, which the save holds until it commits): numbers therefore follow the order in which saves commit,
/// and a reader that read up to a number never later sees a smaller one appear, which a sequence would not ensure
/// with concurrent writers.
enum PostgresHistorySchema {
    static let transactions = SQLHistoryReading.transactionsTable
    static let changes = SQLHistoryReading.changesTable
    static let state = SQLHistoryReading.stateTable

    static let creationStatements = [
        "CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK BIGINT PRIMARY KEY, ZTIMESTAMP DOUBLE PRECISION NOT NULL, "
            + "ZAUTHOR TEXT, ZCONTEXTNAME TEXT)",
        "CREATE INDEX IF NOT EXISTS \(transactions)_ZTIMESTAMP ON \(transactions) (ZTIMESTAMP)",
        "CREATE TABLE IF NOT EXISTS \(changes) (Z_PK BIGSERIAL PRIMARY KEY, ZTRANSACTIONID BIGINT NOT NULL, "
            + "ZCHANGETYPE BIGINT NOT NULL, ZENTITYNAME TEXT NOT NULL, ZENTITYPK BIGINT NOT NULL, ZCOLUMNS TEXT, "
            + "ZTOMBSTONE TEXT)",
        "CREATE INDEX IF NOT EXISTS \(changes)_ZTRANSACTIONID ON \(changes) (ZTRANSACTIONID)",
        "CREATE TABLE IF NOT EXISTS \(state) (Z_PK BIGINT PRIMARY KEY, ZDELETEDTHROUGH BIGINT NOT NULL)",
    ]

    /// Change rows written per `INSERT` (7 parameters each, well within PostgreSQL's 65,535).
    static let changesPerStatement = 500
}

extension PostgresStore {
    /// Creates the history tables when missing (never in a read-only store: it then reads what is there).
    func createHistoryTables() throws {
        guard !isReadOnly else { return }
        try converting("creating the history tables") {
            try session.inTransaction {
                try lockSchemaCreation()
                for statement in PostgresHistorySchema.creationStatements { try session.query(statement) }
            }
        }
    }

    /// Whether the schema has the history tables.
    private func hasHistoryTables() throws -> Bool {
        let rows = try session.query(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND upper(table_name) = ?",
            [.text(location.schema), .text(PostgresHistorySchema.transactions)])
        return try rows.first.map { try $0[column: 0].decode(Int64.self) > 0 } ?? false
    }

    /// Writes a save's history rows as transaction `number` inside the save's open transaction.
    func writeHistory(_ changes: StoreChanges, recording: PersistentHistoryRecording, number: Int64) throws {
        try session.query(
            "INSERT INTO \(PostgresHistorySchema.transactions) (Z_PK, ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME) "
                + "VALUES (?, ?, ?, ?)",
            [
                .integer(number), .real(recording.timestamp.timeIntervalSinceReferenceDate),
                recording.author.map(SQLValue.text) ?? .null, recording.contextName.map(SQLValue.text) ?? .null,
            ])
        let changes = recording.historyChanges(of: changes, firstChangeID: 0)
        var start = changes.startIndex
        while start < changes.endIndex {
            let chunk = changes[start..<min(start + PostgresHistorySchema.changesPerStatement, changes.endIndex)]
            start = chunk.endIndex
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(chunk.count * 7)
            for change in chunk { bindings += [.integer(number)] + SQLHistoryReading.values(of: change) }
            let row = "(?, ?, ?, ?, ?, ?)"
            try session.query(
                "INSERT INTO \(PostgresHistorySchema.changes) (ZTRANSACTIONID, ZCHANGETYPE, ZENTITYNAME, ZENTITYPK, "
                    + "ZCOLUMNS, ZTOMBSTONE) VALUES "
                    + Array(repeating: row, count: chunk.count).joined(separator: ", "), bindings)
        }
    }

    /// The transactions a query selects, with their changes, in one query.
    func readHistory(_ query: PersistentHistoryQuery) throws -> [PersistentHistoryTransaction] {
        guard try hasHistoryTables() else { return [] }
        if let after = query.afterTransactionNumber {
            let deletedThrough = try readDeletedThrough()
            if after < deletedThrough { throw historyTokenExpired(after: after, deletedThrough: deletedThrough) }
        }
        let (sql, arguments) = SQLHistoryReading.statement(
            for: query, transactions: PostgresHistorySchema.transactions, changes: PostgresHistorySchema.changes)
        let rows = try session.query(sql, arguments)
        var assembler = SQLHistoryReading.Assembler(storeID: identifier) { [unowned self] entityName, key in
            objectID(forEntityName: entityName, referenceKey: key)
        }
        for row in rows {
            let cells = PostgresRandomAccessRow(row)
            assembler.add(
                SQLHistoryReading.Row(
                    transactionNumber: try cells[0].decode(Int64.self), timestamp: try cells[1].decode(Double.self),
                    author: try cells[2].decode(String?.self), contextName: try cells[3].decode(String?.self),
                    changeNumber: try cells[4].decode(Int64?.self), changeType: try cells[5].decode(Int64?.self) ?? -1,
                    entityName: try cells[6].decode(String?.self), entityKey: try cells[7].decode(Int64?.self) ?? 0,
                    columns: try cells[8].decode(String?.self), tombstone: try cells[9].decode(String?.self)))
        }
        return assembler.finish()
    }

    /// Deletes transactions and their changes in a transaction of its own; returns how many transactions.
    func removeHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore,
                message: "The PostgreSQL store was opened read-only; its history cannot be deleted.",
                context: ErrorContext(storeURL: url))
        }
        guard try hasHistoryTables() else { return 0 }
        let (condition, arguments) = SQLHistoryReading.condition(for: cutoff, true: "TRUE")
        return try session.inTransaction {
            // Concurrent deletions of one schema's history run one after the other.
            try session.query(
                "SELECT pg_advisory_xact_lock(hashtext(?))", [.text("ObjectGraphHistory:" + location.schema)])
            let last = try session.query(
                "SELECT COUNT(*), MAX(Z_PK) FROM \(PostgresHistorySchema.transactions) WHERE \(condition)", arguments)
            guard let cells = last.first.map(PostgresRandomAccessRow.init) else { return 0 }
            let count = Int(try cells[0].decode(Int64.self))
            guard count > 0, let through = try cells[1].decode(Int64?.self) else { return 0 }
            try session.query(
                "DELETE FROM \(PostgresHistorySchema.changes) WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM "
                    + "\(PostgresHistorySchema.transactions) WHERE \(condition))", arguments)
            try session.query("DELETE FROM \(PostgresHistorySchema.transactions) WHERE \(condition)", arguments)
            // By date, a later transaction may stay while an earlier one goes: the lowest kept number minus one
            // is what a token may still name.
            let kept = try session.query("SELECT MIN(Z_PK) FROM \(PostgresHistorySchema.transactions)")
            let lowestKept = try kept.first.flatMap { try $0[column: 0].decode(Int64?.self) }
            let deletedThrough = lowestKept.map { min(through, $0 - 1) } ?? through
            try session.query(
                "INSERT INTO \(PostgresHistorySchema.state) (Z_PK, ZDELETEDTHROUGH) VALUES (1, ?) ON CONFLICT (Z_PK) "
                    + "DO UPDATE SET ZDELETEDTHROUGH = GREATEST(\(PostgresHistorySchema.state).ZDELETEDTHROUGH, "
                    + "EXCLUDED.ZDELETEDTHROUGH)", [.integer(deletedThrough)])
            return count
        }
    }

    private func readDeletedThrough() throws -> Int64 {
        let rows = try session.query("SELECT ZDELETEDTHROUGH FROM \(PostgresHistorySchema.state) WHERE Z_PK = 1")
        return try rows.first.map { try $0[column: 0].decode(Int64.self) } ?? 0
    }

    /// The number of the last transaction recorded, kept or deleted: the change token (saves of coordinators
    /// that do not track history leave gaps, which readers skip).
    func readLastHistoryTransactionNumber() throws -> Int64 {
        let rows = try session.query("SELECT Z_TOKEN FROM Z_METADATA WHERE Z_VERSION = 1")
        return try rows.first.map { try $0[column: 0].decode(Int64.self) } ?? 0
    }
}
