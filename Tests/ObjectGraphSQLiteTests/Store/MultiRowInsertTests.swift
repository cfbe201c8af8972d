import CSQLite
import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// A save writes each entity's new rows in `INSERT`s of many rows (``RowWriter/rowsPerInsert``), the rest one by one.
@Suite("SQLite multi-row inserts")
struct MultiRowInsertTests {
    private func entityNumber(_ url: URL, _ name: String) throws -> String {
        try #require(try rawRows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)'").first)
    }

    /// What the session table should hold for `objects`, in the columns `rows(_:_:)` reads below.
    private func expectedRows(_ objects: [ManagedObject], url: URL) throws -> [String] {
        let numbers = try ["Session": entityNumber(url, "Session"), "Workshop": entityNumber(url, "Workshop")]
        return objects.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }.map { object in
            let room = (object.value(forKey: "room") as? ManagedObject).map { "\($0.objectID.referenceKey)" } ?? "NULL"
            let capacity = object.entity.name == "Workshop" ? "\(object.value(forKey: "capacity") as! Int)" : "NULL"
            let start = (object.value(forKey: "start") as? Date).map { "\($0.timeIntervalSinceReferenceDate)" }
            return ["\(object.objectID.referenceKey)", numbers[object.entity.name]!, "1",
                    object.value(forKey: "guid") as! String, room, capacity, start ?? "NULL"].joined(separator: "|")
        }
    }

    /// (Dates are stored with numeric affinity, so whole seconds come back as integers unless cast.)
    private let sessionColumns =
        "SELECT Z_PK, Z_ENT, Z_OPT, ZGUID, ZROOM, ZCAPACITY, CAST(ZSTART AS REAL) FROM ZSESSION ORDER BY Z_PK"

    /// 75 sessions and 40 workshops made in turn, with rooms between them: each entity's rows are gathered, so
    /// sessions take two statements of 32 rows and 11 single ones, workshops one of 32 and 8 single ones.
    @Test func interleavedObjectsOfSeveralEntitiesLandInTheirRows() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let url = try #require(store.url)
        let context = fixture.context()
        var sessions: [ManagedObject] = []
        var rooms: [ManagedObject] = []
        for n in 0..<75 {
            if n % 25 == 0 {
                let room = context.insertNewObject(forEntityName: "Room")
                room.setValue("Room \(n / 25)", forKey: "name")
                rooms.append(room)
            }
            let session = context.makeSession("s\(n)", start: n % 3 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(n) * 60))
            session.setValue(n % 4 == 0 ? nil : rooms.last, forKey: "room")
            sessions.append(session)
            if n < 40 {
                let workshop = context.insertNewObject(forEntityName: "Workshop")
                workshop.setValue("w\(n)", forKey: "guid")
                workshop.setValue("Workshop \(n)", forKey: "title")
                workshop.setValue(n * 2, forKey: "capacity")
                workshop.setValue(rooms[0], forKey: "room")
                sessions.append(workshop)
            }
        }
        try context.save()
        #expect(sessions.count == 115)
        #expect(try rawRows(url, sessionColumns) == expectedRows(sessions, url: url))
        #expect(try rawRows(url, "SELECT COUNT(*) FROM ZROOM") == ["3"])
        let fetched = try fixture.context().all("Session", sortedBy: "guid")
        #expect(fetched.map { $0.value(forKey: "guid") as? String } == sessions.map { $0.value(forKey: "guid") as? String }.sorted { $0! < $1! })
    }

    /// A connection allowing few parameters per statement gets `INSERT`s of fewer rows: a statement of 32 rows of
    /// a session's parameters would fail to prepare.
    @Test func statementsStayWithinTheConnectionsParameterLimit() throws {
        let fixture = Fixture(.sqlite)
        let store = try #require(try fixture.addStore() as? SQLiteStore)
        let connection = try store.openConnection()
        sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 40)
        let context = fixture.context()
        let sessions = (0..<45).map { context.makeSession("s\($0)", start: Date(timeIntervalSinceReferenceDate: Double($0))) }
        try context.save()
        let url = try #require(store.url)
        #expect(try rawRows(url, sessionColumns) == expectedRows(sessions, url: url))
        let writer = try #require(store.rowWriters.values.first)
        #expect(writer.rowsPerInsert == 40 / writer.parametersPerRow)
        #expect(writer.rowsPerInsert > 1 && writer.rowsPerInsert < RowWriter.maximumRowsPerInsert)
    }

    /// A row that fails inside a multi-row statement (its key taken by a row another program wrote) fails the whole
    /// save: no row of it is written, the context keeps its objects, and once the key is free they save.
    @Test func aFailingRowInAMultiRowInsertWritesNoRowOfTheSave() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let url = try #require(store.url)
        let context = fixture.context()
        context.makeSession("saved")
        try context.save()
        let sessions = (0..<70).map { context.makeSession("s\($0)") }
        try context.obtainPermanentIDs(for: sessions)
        // The 40th object's row belongs to the second statement of 32 rows.
        let takenKey = sessions[39].objectID.referenceKey
        let number = try entityNumber(url, "Session")
        let other = try SQLiteConnection(path: url.path)
        try other.execute("INSERT INTO ZSESSION (Z_PK, Z_ENT, Z_OPT, ZGUID, ZTITLE) VALUES (\(takenKey), \(number), 1, 'other', 'Other')")

        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.message.contains("UNIQUE") || error.message.contains("constraint"))
        #expect(try rawRows(url, "SELECT ZGUID FROM ZSESSION ORDER BY Z_PK") == ["saved", "other"])
        #expect(context.insertedObjects.count == 70)

        try other.execute("DELETE FROM ZSESSION WHERE ZGUID = 'other'")
        try context.save()
        #expect(try rawRows(url, "SELECT COUNT(*) FROM ZSESSION") == ["71"])
        #expect(context.insertedObjects.isEmpty)
    }
}
