import CSQLite
import Foundation
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite struct SQLiteFileValidationTests {
    @Test func textFileIsRefusedAsNotADatabase() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("notes.txt")
        try Data(String(repeating: "This is not a database.\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        #expect(!SQLiteConnection.isSQLiteFile(atPath: path))
        do {
            _ = try SQLiteConnection(path: path)
            Issue.record("expected SQLITE_NOTADB")
        } catch {
            #expect(error.resultCode == SQLITE_NOTADB)
            #expect(error.isNotADatabaseOrCorrupt)
        }
    }

    @Test func headerCheck() {
        #expect(SQLiteConnection.isSQLiteFile(header: Array("SQLite format 3\0rest".utf8)))
        #expect(!SQLiteConnection.isSQLiteFile(header: Array("SQLite format 3".utf8)))
        #expect(!SQLiteConnection.isSQLiteFile(header: [UInt8]()))
        #expect(!SQLiteConnection.isSQLiteFile(atPath: "/nonexistent"))
    }

    @Test(arguments: [10, 100, 1000])
    func fileTruncatedInsideTheHeaderIsRefused(length: Int) throws {
        let folder = try TemporaryDirectory()
        let path = try makeDatabase(in: folder)
        try truncate(path, to: length)
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.quickCheck()
            Issue.record("expected the truncated file to be refused")
        } catch {
            #expect(error.isNotADatabaseOrCorrupt, "\(error)")
        }
    }

    @Test func fileTruncatedAfterItsFirstPagesFailsTheQuickCheck() throws {
        let folder = try TemporaryDirectory()
        let path = try makeDatabase(in: folder)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 8 * 4096)
        try truncate(path, to: size / 2)
        do {
            let connection = try SQLiteConnection(path: path, configuration: readOnly)
            try connection.quickCheck()
            Issue.record("expected the quick check to fail")
        } catch {
            #expect(error.resultCode == SQLITE_CORRUPT, "\(error)")
        }
    }

    @Test func intactFilePassesTheQuickCheck() throws {
        let folder = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: try makeDatabase(in: folder))
        try connection.quickCheck()
    }

    @Test(
        .enabled(if: sharedFixturesDirectory() != nil, "needs the shared fixtures folder (../shared beside the checkout)"))
    func coreDataStoreOpensReadOnly() throws {
        let shared = try #require(sharedFixturesDirectory())
        let path = shared.appendingPathComponent("coredata/NotesV7.storedata").path
        #expect(SQLiteConnection.isSQLiteFile(atPath: path))
        let connection = try SQLiteConnection(path: path, configuration: readOnly)
        try connection.quickCheck()
        let select = try connection.prepare("SELECT Z_NAME, Z_ENT, Z_SUPER FROM Z_PRIMARYKEY")
        var rows: [(String, Int64, Int64)] = []
        while try select.step() == .row {
            rows.append((select.string(at: 0) ?? "", select.int64(at: 1), select.int64(at: 2)))
        }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { !$0.0.isEmpty && $0.1 > 0 })
    }

    private var readOnly: SQLiteConnection.Configuration {
        var configuration = SQLiteConnection.Configuration()
        configuration.mode = .readOnly
        return configuration
    }

    /// A rollback-journal database of several dozen pages.
    private func makeDatabase(in folder: borrowing TemporaryDirectory) throws -> String {
        let path = folder.path("store.sqlite")
        var configuration = SQLiteConnection.Configuration()
        configuration.journalMode = .delete
        let connection = try SQLiteConnection(path: path, configuration: configuration)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT); CREATE INDEX t_s ON t (s)")
        try connection.inTransaction {
            let insert = try connection.prepare("INSERT INTO t (s) VALUES (?)")
            for index in 0..<2000 {
                try insert.bind("row \(index) " + String(repeating: "x", count: index % 100), at: 1)
                try insert.run()
            }
        }
        connection.close()
        return path
    }

    private func truncate(_ path: String, to length: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }
}
