import BenchmarkSupport
import CSQLiteRaw
import Foundation
import ObjectGraph
import ObjectGraphSQLite

/// Issue 29's migration and prefetching rows: a schedule of rooms, talks and speakers.
@MainActor
enum GraphWorkloads {
    // MARK: Models

    /// Rooms and talks; `version` 2 adds an attribute to each entity and renames `code` to `reference`, which
    /// an inferred mapping model carries over.
    static func migrationModel(version: Int) -> ManagedObjectModel {
        var roomProperties: [PropertyDescription] = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "talks", destination: "Talk", inverse: "room", toMany: true),
        ]
        let code = AttributeDescription(name: version == 1 ? "code" : "reference", type: .string)
        if version == 2 { code.renamingIdentifier = "code" }
        var talkProperties: [PropertyDescription] = [
            AttributeDescription(name: "title", type: .string), code,
            AttributeDescription(name: "duration", type: .integer32), AttributeDescription(name: "start", type: .date),
            AttributeDescription(name: "score", type: .double),
            RelationshipDescription(name: "room", destination: "Room", inverse: "talks"),
        ]
        if version == 2 {
            roomProperties.append(AttributeDescription(name: "capacity", type: .integer32))
            talkProperties.append(AttributeDescription(name: "rating", type: .integer16))
        }
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Room", properties: roomProperties),
            EntityDescription(name: "Talk", properties: talkProperties),
        ])
    }

    /// Sessions with a room each and speakers (many-to-many).
    static func scheduleModel() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(name: "Room", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "sessions", destination: "Session", inverse: "room", toMany: true),
            ]),
            EntityDescription(name: "Speaker", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "sessions", destination: "Session", inverse: "speakers", toMany: true),
            ]),
            EntityDescription(name: "Session", properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "start", type: .date),
                RelationshipDescription(name: "room", destination: "Room", inverse: "sessions"),
                RelationshipDescription(name: "speakers", destination: "Speaker", inverse: "sessions", toMany: true),
            ]),
        ])
    }

    // MARK: Migration with an inferred mapping vs a plain copy

    /// Writes `talkCount` talks in `roomCount` rooms to a new store of the version-1 model, through a context.
    static func writeMigrationSource(at url: URL, talks talkCount: Int, rooms roomCount: Int) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: migrationModel(version: 1))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        let rooms = (0..<roomCount).map { index in
            let room = context.insertNewObject(forEntityName: "Room")
            room.setValue("Room \(index)", forKey: "name")
            return room
        }
        for index in 0..<talkCount {
            let talk = context.insertNewObject(forEntityName: "Talk")
            talk.setValue("Talk \(index)", forKey: "title")
            talk.setValue("T-\(index)", forKey: "code")
            talk.setValue(15 + index % 60, forKey: "duration")
            talk.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 900), forKey: "start")
            talk.setValue(Double(index % 100) / 10, forKey: "score")
            talk.setValue(rooms[index % roomCount], forKey: "room")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// The row: `MigrationManager` with an inferred mapping (version 1 to 2) against
    /// `migratePersistentStore` copying the same store to a new file, interleaved run by run.
    static func migrationRow(runs: Figure.Runs, quick: Bool, in folder: URL) throws -> (ResultRow, String) {
        let talkCount = quick ? 20_000 : 99_900
        let roomCount = quick ? 20 : 100
        let objects = talkCount + roomCount
        let source = folder.appendingPathComponent("migration-source.sqlite")
        try writeMigrationSource(at: source, talks: talkCount, rooms: roomCount)
        defer { SQLiteWorkloadData.removeDatabase(source) }
        let version1 = migrationModel(version: 1)
        let version2 = migrationModel(version: 2)
        var number = 0
        func destination() -> URL {
            number += 1
            return folder.appendingPathComponent("migrated-\(number).sqlite")
        }
        let (migration, copy) = try Figure.samplingPair(runs, unit: "s", ours: {
            let target = destination()
            defer { SQLiteWorkloadData.removeDatabase(target) }
            let manager = MigrationManager(sourceModel: version1, destinationModel: version2)
            return try Figure.seconds {
                try manager.migrateStore(from: source, type: .sqlite, mapping: nil, to: target, type: .sqlite)
            }
        }, anchor: {
            let target = destination()
            defer { SQLiteWorkloadData.removeDatabase(target) }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: version1)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: source, options: [.readOnly: true])
            return try Figure.seconds {
                let copied = try coordinator.migratePersistentStore(store, to: target, type: .sqlite)
                try coordinator.remove(copied)
            }
        })
        let row = ResultRow(
            workload: "SQLite migration, inferred mapping (MigrationManager) vs plain copy (migratePersistentStore)",
            ours: migration.rate(items: Double(objects), unit: "objects/s"),
            anchor: copy.rate(items: Double(objects), unit: "objects/s"), target: .ratioAtLeast(0.3),
            note: "\(objects / 1000)k objects (\(talkCount) talks of 5 attributes in \(roomCount) rooms); version 2 "
                + "adds an attribute to each entity and renames one; both write a new SQLite file")
        let summary = String(format: "migration, inferred mapping: %.2f s; plain copy: %.2f s; ours/anchor speed %.2fx",
                             migration.median, copy.median, copy.median / migration.median)
        return (row, summary)
    }

    // MARK: Prefetching vs a hand-written pair of queries

    /// Writes the schedule: `sessionCount` sessions, each in one of 40 rooms with two of 300 speakers.
    static func writeSchedule(at url: URL, sessions sessionCount: Int) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: scheduleModel())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        let rooms = (0..<40).map { index in
            let room = context.insertNewObject(forEntityName: "Room")
            room.setValue("Room \(index)", forKey: "name")
            return room
        }
        let speakers = (0..<300).map { index in
            let speaker = context.insertNewObject(forEntityName: "Speaker")
            speaker.setValue("Speaker \(index)", forKey: "name")
            return speaker
        }
        for index in 0..<sessionCount {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue("Session \(index)", forKey: "title")
            session.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 1800), forKey: "start")
            session.setValue(rooms[index % rooms.count], forKey: "room")
            session.setValue(Set([speakers[index % 300], speakers[(index * 7 + 1) % 300]]), forKey: "speakers")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// One session as the hand-written queries read it.
    struct RawSession {
        var pk: Int64
        var title: String
        var start: Double
        var roomName: String?
        var speakers: [String] = []
    }

    static func text(_ statement: OpaquePointer?, _ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))),
                      as: UTF8.self)
    }

    /// The sessions with their rooms (one join) and their speakers (the join table with the speakers), read into
    /// structs; returns a checksum of what was read.
    static func rawSessions(_ db: OpaquePointer?, joinTable: String, sessionColumn: String, speakerColumn: String)
        -> Int
    {
        var sessions: [RawSession] = []
        var position: [Int64: Int] = [:]
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT s.Z_PK, s.ZTITLE, s.ZSTART, r.ZNAME FROM ZSESSION s "
            + "LEFT JOIN ZROOM r ON r.Z_PK = s.ZROOM", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW {
            let pk = sqlite3_column_int64(statement, 0)
            position[pk] = sessions.count
            sessions.append(RawSession(pk: pk, title: text(statement, 1) ?? "",
                                       start: sqlite3_column_double(statement, 2), roomName: text(statement, 3)))
        }
        sqlite3_finalize(statement)
        sqlite3_prepare_v2(db, "SELECT j.\(sessionColumn), p.ZNAME FROM \(joinTable) j "
            + "JOIN ZSPEAKER p ON p.Z_PK = j.\(speakerColumn)", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let index = position[sqlite3_column_int64(statement, 0)] else { continue }
            sessions[index].speakers.append(text(statement, 1) ?? "")
        }
        sqlite3_finalize(statement)
        return sessions.reduce(0) { $0 &+ $1.title.utf8.count &+ ($1.roomName?.utf8.count ?? 0) &+ $1.speakers.count }
    }

    /// The sessions fetched through a context with `room` and `speakers` prefetched, each one's title, room name
    /// and speakers' names read; returns the same checksum as `rawSessions`.
    static func prefetchedSessions(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Session")
        request.relationshipKeyPathsForPrefetching = ["room", "speakers"]
        let sessions = try context.fetch(request)
        var checksum = 0
        for session in sessions {
            let title = session.value(forKey: "title") as? String ?? ""
            let room = (session.value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String
            let speakers = session.objects(forKey: "speakers").map { $0.value(forKey: "name") as? String ?? "" }
            checksum = checksum &+ title.utf8.count &+ (room?.utf8.count ?? 0) &+ speakers.count
        }
        return withExtendedLifetime(context) { checksum }
    }

    /// The many-to-many join table of `Session.speakers` and its two columns, as the store named them.
    static func joinTable(_ db: OpaquePointer?) -> (table: String, session: String, speaker: String) {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%SPEAKERS' "
            + "ESCAPE '\\'", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let table = text(statement, 0) else {
            fatalError("no join table for Session.speakers")
        }
        var columns: [String] = []
        var info: OpaquePointer?
        sqlite3_prepare_v2(db, "PRAGMA table_info(\(table))", -1, &info, nil)
        while sqlite3_step(info) == SQLITE_ROW { columns.append(text(info, 1) ?? "") }
        sqlite3_finalize(info)
        guard let session = columns.first(where: { $0.hasSuffix("SESSIONS") }),
            let speaker = columns.first(where: { $0.hasSuffix("SPEAKERS") })
        else { fatalError("unexpected columns \(columns) in \(table)") }
        return (table, session, speaker)
    }

    /// The row: a context fetch of 1,000 sessions prefetching rooms and speakers, every value read, against the
    /// hand-written pair of queries reading the same values.
    static func prefetchRow(runs: Figure.Runs, in folder: URL) throws -> (ResultRow, String) {
        let sessionCount = 1_000
        let url = folder.appendingPathComponent("prefetch.sqlite")
        try writeSchedule(at: url, sessions: sessionCount)
        defer { SQLiteWorkloadData.removeDatabase(url) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: scheduleModel())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [.readOnly: true])
        defer { try? coordinator.remove(store) }
        var db: OpaquePointer?
        sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(db) }
        let join = joinTable(db)
        let expected = rawSessions(db, joinTable: join.table, sessionColumn: join.session, speakerColumn: join.speaker)
        let ours = try prefetchedSessions(coordinator)
        precondition(ours == expected, "the prefetching fetch read \(ours), the raw queries \(expected)")
        let iterations = 10
        var sink = 0
        let (prefetched, raw) = try Figure.timingPair(runs, ours: {
            for _ in 0..<iterations { sink &+= try prefetchedSessions(coordinator) }
        }, anchor: {
            for _ in 0..<iterations {
                sink &+= rawSessions(db, joinTable: join.table, sessionColumn: join.session,
                                     speakerColumn: join.speaker)
            }
        })
        precondition(sink != 42)
        let ourTime = prefetched.scaled(by: 1 / Double(iterations))
        let rawTime = raw.scaled(by: 1 / Double(iterations))
        let row = ResultRow(
            workload: "SQLite fetch of 1,000 sessions prefetching rooms and speakers vs a hand-written pair of queries",
            ours: ourTime, anchor: rawTime, target: .ratioAtMost(2),
            note: "time per fetch (\(iterations) per run), a new context each, title, room name and 2 speakers' names "
                + "read per session; the raw pair: sessions LEFT JOIN rooms, the join table JOIN speakers")
        let summary = String(format: "prefetching fetch: %.2f ms; hand-written pair: %.2f ms; ours/raw %.2fx",
                             ourTime.median * 1e3, rawTime.median * 1e3, ourTime.median / rawTime.median)
        return (row, summary)
    }
}
