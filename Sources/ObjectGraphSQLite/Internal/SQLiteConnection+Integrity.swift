import CSQLite
import Foundation

extension SQLiteConnection {
    /// The 16 bytes every SQLite 3 database file starts with: "SQLite format 3" and a NUL.
    static let fileHeader: [UInt8] = Array("SQLite format 3\0".utf8)

    /// Whether `header` (the first bytes of a file, at least 16) starts like an SQLite 3 database.
    /// A cheap test to tell a store file from something else before opening it.
    static func isSQLiteFile(header: some Collection<UInt8>) -> Bool {
        header.count >= fileHeader.count && header.prefix(fileHeader.count).elementsEqual(fileHeader)
    }

    /// Whether the file at `path` starts like an SQLite 3 database; `false` if it cannot be read.
    static func isSQLiteFile(atPath path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: fileHeader.count)) ?? Data()
        return isSQLiteFile(header: header)
    }

    /// Runs `PRAGMA quick_check`: a fast structural check of every page (no index-content check).
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` and the first problems SQLite found, or the error that
    ///   stopped the check (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    func quickCheck() throws(SQLiteError) {
        let statement = try makeStatement("PRAGMA quick_check")
        var problems: [String] = []
        while try statement.step() == .row {
            let line = statement.string(at: 0) ?? ""
            if line != "ok" { problems.append(line) }
        }
        guard problems.isEmpty else {
            throw SQLiteError(
                resultCode: SQLITE_CORRUPT,
                message: "The database file is damaged: " + problems.prefix(5).joined(separator: "; "),
                sql: statement.sql
            )
        }
    }
}
