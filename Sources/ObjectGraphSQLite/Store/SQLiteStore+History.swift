import Foundation
import ObjectGraph

/// The persistent history tables: one row per transaction, one per changed object, and the number of the last
/// deleted transaction. Written in the save's own transaction, so a save and its history commit or roll back
/// together. (Core Data's own history tables, `ATRANSACTION` and `ACHANGE`, are neither read nor written.)
enum SQLiteHistorySchema {
    static let transactions = SQLHistoryReading.transactionsTable
    static let changes = SQLHistoryReading.changesTable
    static let state = SQLHistoryReading.stateTable

    static let creationStatements = [
        "CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP REAL NOT NULL, "
            + "ZAUTHOR TEXT, ZCONTEXTNAME TEXT)",
        "CREATE TABLE IF NOT EXISTS \(changes) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTRANSACTIONID INTEGER NOT NULL, "
            + "ZCHANGETYPE INTEGER NOT NULL, ZENTITYNAME TEXT NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS TEXT, "
            + "ZTOMBSTONE TEXT)",
        "CREATE INDEX IF NOT EXISTS \(changes)_ZTRANSACTIONID ON \(changes) (ZTRANSACTIONID)",
        "CREATE TABLE IF NOT EXISTS \(state) (Z_PK INTEGER PRIMARY KEY, ZDELETEDTHROUGH INTEGER NOT NULL)",
    ]
}

extension SQLiteStore {
    /// Creates the history tables when missing (never in a read-only store: it then reads what is there).
    func createHistoryTables() throws {
        guard !isReadOnly else { return }
        let connection = try openConnection()
        try StoreErrorFactory.converting(url: url, doing: "creating the history tables") {
            try connection.inTransaction {
                for statement in SQLiteHistorySchema.creationStatements { try connection.execute(statement) }
            }
        }
    }

    /// Whether the file has the history tables.
    private func hasHistoryTables() throws -> Bool {
        let statement = try openConnection().prepare(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '\(SQLiteHistorySchema.transactions)'")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0) > 0
    }

    /// Writes a save's history rows inside the save's open transaction.
    func writeHistory(_ changes: StoreChanges, recording: PersistentHistoryRecording) throws {
        let connection = try openConnection()
        let transaction = try connection.prepare(
            "INSERT INTO \(SQLiteHistorySchema.transactions) (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME) VALUES (?, ?, ?)")
        try transaction.bind([
            .real(recording.timestamp.timeIntervalSinceReferenceDate),
            recording.author.map(SQLValue.text), recording.contextName.map(SQLValue.text),
        ])
        try transaction.run()
        let number = connection.lastInsertRowID
        let insert = try connection.prepare(
            "INSERT INTO \(SQLiteHistorySchema.changes) (ZTRANSACTIONID, ZCHANGETYPE, ZENTITYNAME, ZENTITYPK, ZCOLUMNS, "
                + "ZTOMBSTONE) VALUES (?, ?, ?, ?, ?, ?)")
        for change in recording.historyChanges(of: changes, firstChangeID: 0) {
            try insert.bind(([.integer(number)] + SQLHistoryReading.values(of: change)).map { $0 })
            try insert.run()
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
            for: query, transactions: SQLiteHistorySchema.transactions, changes: SQLiteHistorySchema.changes)
        let statement = try openConnection().prepare(sql)
        try statement.bind(arguments.map { $0 })
        defer { statement.reset() }
        var assembler = SQLHistoryReading.Assembler(storeID: identifier) { [unowned self] entityName, key in
            objectID(forEntityName: entityName, referenceKey: key)
        }
        while try statement.step() == .row {
            assembler.add(
                SQLHistoryReading.Row(
                    transactionNumber: statement.int64(at: 0), timestamp: statement.double(at: 1),
                    author: statement.string(at: 2), contextName: statement.string(at: 3),
                    changeNumber: statement.isNull(at: 4) ? nil : statement.int64(at: 4),
                    changeType: statement.int64(at: 5), entityName: statement.string(at: 6),
                    entityKey: statement.int64(at: 7), columns: statement.string(at: 8),
                    tombstone: statement.string(at: 9)))
        }
        return assembler.finish()
    }

    /// Deletes transactions and their changes in a transaction of its own; returns how many transactions.
    func removeHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore,
                message: "The SQLite store was opened read-only; its history "
                    + "cannot be deleted.", context: ErrorContext(storeURL: url))
        }
        guard try hasHistoryTables() else { return 0 }
        let connection = try openConnection()
        let (condition, cutoffArguments) = SQLHistoryReading.condition(for: cutoff, true: "1")
        let arguments: [SQLValue?] = cutoffArguments.map { $0 }
        return try connection.inTransaction {
            let last = try connection.prepare(
                "SELECT COUNT(*), MAX(Z_PK) FROM \(SQLiteHistorySchema.transactions) WHERE \(condition)")
            try last.bind(arguments)
            _ = try last.step()
            let count = Int(last.int64(at: 0))
            let through = last.int64(at: 1)
            last.reset()
            guard count > 0 else { return 0 }
            let changes = try connection.prepare(
                "DELETE FROM \(SQLiteHistorySchema.changes) WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM "
                    + "\(SQLiteHistorySchema.transactions) WHERE \(condition))")
            try changes.bind(arguments)
            try changes.run()
            let transactions = try connection.prepare(
                "DELETE FROM \(SQLiteHistorySchema.transactions) WHERE \(condition)")
            try transactions.bind(arguments)
            try transactions.run()
            // By date, a later transaction may stay while an earlier one goes: the lowest kept number minus one
            // is what a token may still name.
            let kept = try connection.prepare("SELECT MIN(Z_PK) FROM \(SQLiteHistorySchema.transactions)")
            _ = try kept.step()
            let deletedThrough = kept.isNull(at: 0) ? through : min(through, kept.int64(at: 0) - 1)
            kept.reset()
            let state = try connection.prepare(
                "INSERT INTO \(SQLiteHistorySchema.state) (Z_PK, ZDELETEDTHROUGH) VALUES (1, ?) ON CONFLICT(Z_PK) DO "
                    + "UPDATE SET ZDELETEDTHROUGH = MAX(ZDELETEDTHROUGH, excluded.ZDELETEDTHROUGH)")
            try state.bind([.integer(deletedThrough)])
            try state.run()
            return count
        }
    }

    private func readDeletedThrough() throws -> Int64 {
        let statement = try openConnection().prepare(
            "SELECT ZDELETEDTHROUGH FROM \(SQLiteHistorySchema.state) WHERE Z_PK = 1")
        defer { statement.reset() }
        return try statement.step() == .row ? statement.int64(at: 0) : 0
    }

    /// The number of the last transaction recorded, kept or deleted.
    func readLastHistoryTransactionNumber() throws -> Int64 {
        guard try hasHistoryTables() else { return 0 }
        let statement = try openConnection().prepare(
            "SELECT seq FROM sqlite_sequence WHERE name = '\(SQLiteHistorySchema.transactions)'")
        defer { statement.reset() }
        return try statement.step() == .row ? statement.int64(at: 0) : 0
    }

    /// SQLite's `data_version`: changed by other connections' commits only.
    func readDataVersion() throws -> UInt64 {
        let statement = try openConnection().prepare("PRAGMA data_version")
        defer { statement.reset() }
        _ = try statement.step()
        return UInt64(truncatingIfNeeded: statement.int64(at: 0))
    }
}
