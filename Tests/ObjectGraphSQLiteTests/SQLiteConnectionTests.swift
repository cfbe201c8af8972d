import CSQLite
import Foundation
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite struct SQLiteConnectionTests {
    @Test func createsAFileAndUsesWALMode() throws {
        let folder = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: folder.path("new.sqlite"))
        let mode = try connection.prepare("PRAGMA journal_mode")
        #expect(try mode.step() == .row)
        #expect(mode.string(at: 0) == "wal")
        #expect(FileManager.default.fileExists(atPath: folder.path("new.sqlite")))
    }

    @Test func readWriteModeDoesNotCreateMissingFiles() throws {
        let folder = try TemporaryDirectory()
        var configuration = SQLiteConnection.Configuration()
        configuration.mode = .readWrite
        #expect(throws: SQLiteError.self) {
            try SQLiteConnection(path: folder.path("missing.sqlite"), configuration: configuration)
        }
    }

    @Test func bindsAndReadsEveryType() throws {
        let folder = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: folder.path("types.sqlite"))
        try connection.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n, f INTEGER, e TEXT, z BLOB)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let blob = Data([0, 1, 2, 0xFF, 0])
        try insert.bind(Int64.max, at: 1)
        try insert.bind(3.25, at: 2)
        try insert.bind("Grüße 😀 \u{0} nul", at: 3)
        try insert.bind(blob, at: 4)
        try insert.bindNull(at: 5)
        try insert.bind(true, at: 6)
        try insert.bind("", at: 7)
        try insert.bind(Data(), at: 8)
        try insert.run()
        #expect(connection.changes == 1)
        #expect(connection.lastInsertRowID == 1)

        let select = try connection.prepare("SELECT i, r, s, b, n, f, e, z FROM t")
        #expect(try select.step() == .row)
        #expect(select.int64(at: 0) == Int64.max)
        #expect(select.double(at: 1) == 3.25)
        #expect(select.string(at: 2) == "Grüße 😀 \u{0} nul")
        #expect(select.data(at: 3) == blob)
        #expect(select.isNull(at: 4))
        #expect(select.string(at: 4) == nil)
        #expect(select.data(at: 4) == nil)
        #expect(select.bool(at: 5))
        #expect(select.string(at: 6) == "")
        #expect(!select.isNull(at: 6))
        #expect(select.data(at: 7) == Data())
        #expect(select.columnType(at: 0) == .integer)
        #expect(select.columnType(at: 1) == .real)
        #expect(select.columnType(at: 2) == .text)
        #expect(select.columnType(at: 3) == .blob)
        #expect(select.columnType(at: 4) == .null)
        #expect(select.columnName(at: 2) == "s")
        #expect(select.value(at: 3) == .blob(blob))
        #expect(try select.step() == .done)
    }

    @Test func bindsSQLValues() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let select = try connection.prepare("SELECT ?, ?, ?, ?, ?")
        try select.bind([.integer(7), .real(1.5), .text("x"), .blob(Data([9])), nil])
        #expect(try select.step() == .row)
        #expect((0..<5).map { select.value(at: $0) } == [.integer(7), .real(1.5), .text("x"), .blob(Data([9])), .null])
    }

    @Test func valuesAreNeverSplicedIntoSQL() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (s TEXT)")
        let hostile = "'); DROP TABLE t; --"
        let insert = try connection.prepare("INSERT INTO t VALUES (?)")
        try insert.bind(hostile, at: 1)
        try insert.run()
        let select = try connection.prepare("SELECT s FROM t")
        #expect(try select.step() == .row)
        #expect(select.string(at: 0) == hostile)
    }

    @Test func statementCacheReusesStatementsAndResetsBindings() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let first = try connection.prepare("SELECT ?")
        try first.bind(Int64(42), at: 1)
        #expect(try first.step() == .row)
        let second = try connection.prepare("SELECT ?")
        #expect(first === second)
        #expect(try second.step() == .row)
        #expect(second.isNull(at: 0))  // bindings cleared, statement reset
        #expect(try connection.prepare("SELECT 1") !== second)
        #expect(try connection.makeStatement("SELECT ?") !== second)
    }

    @Test func prepareRejectsMultipleStatementsAndBadSQL() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(throws: SQLiteError.self) { try connection.prepare("SELECT 1; SELECT 2") }
        do {
            _ = try connection.prepare("SELEC 1")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.resultCode == SQLITE_ERROR)
            #expect(error.sql == "SELEC 1")
            #expect(error.message.contains("syntax error"))
        }
    }

    @Test func constraintErrorsCarryExtendedCodes() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, u TEXT UNIQUE)")
        try connection.execute("INSERT INTO t (u) VALUES ('a')")
        let insert = try connection.prepare("INSERT INTO t (u) VALUES (?)")
        try insert.bind("a", at: 1)
        do {
            try insert.run()
            Issue.record("expected a constraint error")
        } catch {
            #expect(error.resultCode == SQLITE_CONSTRAINT)
            #expect(error.extendedResultCode == SQLITE_CONSTRAINT | (8 << 8))  // SQLITE_CONSTRAINT_UNIQUE
        }
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("ro.sqlite")
        do {
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        }
        var configuration = SQLiteConnection.Configuration()
        configuration.mode = .readOnly
        let reader = try SQLiteConnection(path: path, configuration: configuration)
        let count = try reader.prepare("SELECT count(*) FROM t")
        #expect(try count.step() == .row)
        #expect(count.int64(at: 0) == 1)
        do {
            try reader.execute("INSERT INTO t VALUES (2)")
            Issue.record("expected SQLITE_READONLY")
        } catch {
            #expect(error.resultCode == SQLITE_READONLY)
        }
    }

    @Test func closedConnectionThrowsMisuse() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        connection.close()
        do {
            try connection.execute("SELECT 1")
            Issue.record("expected SQLITE_MISUSE")
        } catch {
            #expect(error.resultCode == SQLITE_MISUSE)
        }
    }

    @Test func fileNamesAreNotURIs() throws {
        let folder = try TemporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        // The only test that depends on the working directory; every other test uses absolute paths.
        #expect(FileManager.default.changeCurrentDirectoryPath(folder.url.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        _ = try SQLiteConnection(path: "file:odd?mode=memory")
        #expect(FileManager.default.fileExists(atPath: folder.path("file:odd?mode=memory")))
    }
}
