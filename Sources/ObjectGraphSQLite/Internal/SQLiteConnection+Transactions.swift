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
