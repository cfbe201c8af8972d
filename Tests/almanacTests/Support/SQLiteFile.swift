import CSQLite
import Foundation

/// A SQLite file opened with the C API, for what tests check or prepare behind the daemon's back.
final class SQLiteFile {
    private var db: OpaquePointer?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw Failure(description: "\(url.path): \(message)")
        }
    }

    deinit { sqlite3_close_v2(db) }

    /// Runs statements without results.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "failed"
            sqlite3_free(message)
            throw Failure(description: "\(text) — in \(sql.prefix(200))")
        }
    }

    /// The first column of every row of a query, as text.
    func strings(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    /// `PRAGMA integrity_check`'s answer: `["ok"]` for a sound file.
    func integrityCheck() throws -> [String] { try strings("PRAGMA integrity_check") }
}
