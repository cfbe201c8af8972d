import CSQLite
import Glibc

/// An error reported by SQLite, with the statement that failed.
///
/// Internal: the store converts it to the public store error at the module's edge. Bound values are never part
/// of it (statements carry `?` placeholders, never values).
struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, `SQLITE_NOTADB`, …).
    var resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); equals `resultCode` when there is none.
    var extendedResultCode: Int32
    /// `sqlite3_errmsg`, or the description of the code when there is no connection.
    var message: String
    /// The SQL being prepared or run, if any.
    var sql: String?
    /// The operating system's `errno` of the failed call behind an I/O error (`sqlite3_system_errno`), else 0.
    var systemErrorNumber: Int32 = 0

    init(resultCode: Int32, extendedResultCode: Int32? = nil, message: String? = nil, sql: String? = nil) {
        self.resultCode = resultCode & 0xFF
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.message = message ?? String(cString: sqlite3_errstr(resultCode))
        self.sql = sql
    }

    /// The error the connection `db` last reported.
    init(connection db: OpaquePointer?, sql: String? = nil) {
        let code = db.map { sqlite3_extended_errcode($0) } ?? SQLITE_ERROR
        let message = db.map { String(cString: sqlite3_errmsg($0)) }
        self.init(resultCode: code, extendedResultCode: code, message: message, sql: sql)
        recordSystemError(of: db)
    }

    /// Keeps the connection's `errno` for an I/O error (`SQLITE_IOERR…`, `SQLITE_FULL`, `SQLITE_CANTOPEN`): for other
    /// codes it is stale, left by an earlier call.
    mutating func recordSystemError(of db: OpaquePointer?) {
        guard let db, resultCode == SQLITE_IOERR || resultCode == SQLITE_FULL || resultCode == SQLITE_CANTOPEN else {
            return
        }
        systemErrorNumber = sqlite3_system_errno(db)
    }

    /// Whether the file system is full or the disk quota used up: `SQLITE_FULL`, or an I/O error whose system
    /// call failed with `ENOSPC` or `EDQUOT` (a sync or a truncation, which SQLite reports as `SQLITE_IOERR_…`).
    var isStorageFull: Bool {
        resultCode == SQLITE_FULL || systemErrorNumber == ENOSPC || systemErrorNumber == EDQUOT
    }

    /// Whether the file is not a database or is damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    var isNotADatabaseOrCorrupt: Bool {
        resultCode == SQLITE_NOTADB || resultCode == SQLITE_CORRUPT
    }

    var description: String {
        var text = "SQLite error \(resultCode)"
        if extendedResultCode != resultCode { text += " (extended \(extendedResultCode))" }
        text += ": \(message)"
        // Multi-row INSERTs repeat their placeholders dozens of times: the start says which statement it was.
        if let sql { text += " — while executing `\(sql.count > 300 ? sql.prefix(300) + "…" : sql)`" }
        return text
    }
}
