import CSQLite

extension SQLiteConnection {
    /// Runs `body` in a transaction and commits if it returns, rolls back if it throws.
    ///
    /// The outermost call uses `BEGIN IMMEDIATE` (takes the write lock up front, so a busy database fails at the
    /// start instead of at commit); nested calls use savepoints, so an inner failure rolls back only the inner
    /// work when the outer body catches it.
    /// - Throws: what `body` throws (after rolling back), or ``SQLiteError`` from BEGIN/COMMIT/SAVEPOINT.
    func inTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        let depth = transactionDepth
        let savepoint = "og_savepoint_\(depth)"
        try execute(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)")
        transactionDepth += 1
        defer { transactionDepth = depth }
        let result: Result
        do {
            result = try body()
        } catch {
            rollBack(depth: depth, savepoint: savepoint)
            throw error
        }
        do {
            try execute(depth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
        } catch {
            rollBack(depth: depth, savepoint: savepoint)
            throw error
        }
        return result
    }

    /// Runs `body`, whose statements only read, in one read transaction when none is open, so that all of them see
    /// the database as it was at the first (a statement alone sees it as it is when it runs: a record's row and its
    /// lists, read by two statements, could otherwise come from two commits of another process). Inside an open
    /// transaction, `body` runs in it.
    func readingOneSnapshot<Result>(_ body: () throws -> Result) throws -> Result {
        guard !isInTransaction else { return try body() }
        try execute("BEGIN")
        defer {
            // A read transaction's COMMIT only releases the snapshot; should it fail, ROLLBACK does the same.
            if isInTransaction, (try? execute("COMMIT")) == nil { try? execute("ROLLBACK") }
        }
        return try body()
    }

    /// Rolls back, ignoring failures: SQLite may already have rolled back on its own (e.g. after SQLITE_FULL),
    /// and the caller's original error is the one to report.
    private func rollBack(depth: Int, savepoint: String) {
        guard isInTransaction else { return }
        if depth == 0 {
            try? execute("ROLLBACK")
        } else {
            try? execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
        }
    }
}
