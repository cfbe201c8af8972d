import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Prefetched destinations whose own to-many lists no key path follows are read without them; each list is read
/// from the store when first used, and behaves as one read with the row: counts, membership, inverses kept in step,
/// delete rules, saves, undo.
@Suite("SQLite store: to-many lists left out by prefetching")
struct UnreadListTests {
    /// 120 sessions in 3 rooms (s000 in R0, s001 in R1, …), saved.
    private func populated() throws -> (Fixture, PersistentStore) {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let writer = fixture.context()
        let rooms = (0..<3).map { index in
            let room = writer.insertNewObject(forEntityName: "Room")
            room.setValue("R\(index)", forKey: "name")
            return room
        }
        for index in 0..<120 {
            let session = writer.makeSession(String(format: "s%03d", index))
            session.setValue(rooms[index % 3], forKey: "room")
        }
        try writer.save()
        return (fixture, store)
    }

    /// The sessions of a context, by GUID, with their rooms prefetched.
    private func sessionsWithRooms(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        let request = FetchRequest(entityName: "Session")
        request.relationshipKeyPathsForPrefetching = ["room"]
        let sessions = try context.fetch(request)
        return Dictionary(uniqueKeysWithValues: sessions.map { ($0.value(forKey: "guid") as! String, $0) })
    }

    private func guids(_ room: ManagedObject?) -> Set<String> {
        Set((room?.objects(forKey: "sessions") ?? []).compactMap { $0.value(forKey: "guid") as? String })
    }

    @Test func aListLeftOutIsReadWhenFirstUsed() throws {
        let (fixture, store) = try populated()
        let log = try StatementLog(store)
        let context = fixture.context()
        let sessions = try sessionsWithRooms(context)
        // The fetch with its lists, and the rooms' rows alone.
        #expect(log.rowQueries == 2 && log.listQueries == 2)
        let r1 = try #require(sessions["s001"]?.value(forKey: "room") as? ManagedObject)
        #expect(r1.value(forKey: "name") as? String == "R1")
        #expect(log.rowQueries == 2)
        // Membership, count and the list itself: one query, the first time.
        #expect(r1.objects(forKey: "sessions").contains(sessions["s004"]!))
        #expect(log.rowQueries == 3)
        #expect((r1.value(forKey: "sessions") as? Set<ManagedObject>)?.count == 40)
        #expect(guids(r1) == Set((0..<40).map { String(format: "s%03d", $0 * 3 + 1) }))
        #expect(log.rowQueries == 3)
        #expect(!r1.hasChanges && !context.hasChanges)
    }

    @Test func movingASessionKeepsBothListsAndSaves() throws {
        let (fixture, _) = try populated()
        let context = fixture.context()
        let sessions = try sessionsWithRooms(context)
        let s000 = try #require(sessions["s000"])
        let r0 = try #require(s000.value(forKey: "room") as? ManagedObject)
        let r2 = try #require(sessions["s002"]?.value(forKey: "room") as? ManagedObject)
        // Neither room's list was used before the move: the inverse reads both.
        s000.setValue(r2, forKey: "room")
        #expect(guids(r0).count == 39 && !guids(r0).contains("s000"))
        #expect(guids(r2).count == 41 && guids(r2).contains("s000"))
        #expect(r0.changedValues().keys.contains("sessions") && r2.changedValues().keys.contains("sessions"))
        try context.save()

        let fresh = fixture.context()
        let again = try sessionsWithRooms(fresh)
        let freshR2 = try #require(again["s000"]?.value(forKey: "room") as? ManagedObject)
        #expect(freshR2.value(forKey: "name") as? String == "R2")
        #expect(guids(freshR2).count == 41)
        let freshR0 = try #require(again["s003"]?.value(forKey: "room") as? ManagedObject)
        #expect(guids(freshR0).count == 39)
    }

    @Test func undoAndRollbackRestoreAListReadLate() throws {
        let (fixture, _) = try populated()
        let context = fixture.context()
        let sessions = try sessionsWithRooms(context)
        let s000 = try #require(sessions["s000"])
        let r0 = try #require(s000.value(forKey: "room") as? ManagedObject)
        let r1 = try #require(sessions["s001"]?.value(forKey: "room") as? ManagedObject)
        context.processPendingChanges()
        s000.setValue(r1, forKey: "room")
        context.processPendingChanges()
        #expect(guids(r1).count == 41)
        context.undo()
        #expect(s000.value(forKey: "room") as? ManagedObject === r0)
        #expect(guids(r0).count == 40 && guids(r1).count == 40)
        s000.setValue(r1, forKey: "room")
        context.rollback()
        #expect(guids(r0).count == 40 && guids(r1).count == 40 && !context.hasChanges)
    }

    @Test func deletingARoomNullifiesSessionsItNeverRead() throws {
        let (fixture, _) = try populated()
        let context = fixture.context()
        let sessions = try sessionsWithRooms(context)
        let r1 = try #require(sessions["s001"]?.value(forKey: "room") as? ManagedObject)
        // The delete rule (nullify) walks the list, read now.
        context.delete(r1)
        try context.save()
        #expect(sessions["s001"]?.value(forKey: "room") == nil)
        let fresh = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "room == nil")
        #expect(try fresh.count(for: request) == 40)
    }

    /// An object with two lists left out reads both with one query, when the first is used.
    @Test func theListsOfOneObjectAreReadTogether() throws {
        let (fixture, store) = try populated()
        let writer = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "guid IN {'s000', 's003'}")
        let pair = try writer.fetch(request)
        let person = writer.insertNewObject(forEntityName: "Person")
        person.setValue("P", forKey: "name")
        person.setValue(Set(pair), forKey: "sessions")
        let note = writer.insertNewObject(forEntityName: "Note")
        note.setValue("bring a laptop", forKey: "text")
        for session in pair { session.setValue(Set([note]), forKey: "notes") }
        try writer.save()

        let context = fixture.context()
        let people = FetchRequest(entityName: "Person")
        people.relationshipKeyPathsForPrefetching = ["sessions"]
        let sessions = try #require(try context.fetch(people).first).objects(forKey: "sessions")
        #expect(Set(sessions.compactMap { $0.value(forKey: "guid") as? String }) == ["s000", "s003"])
        let log = try StatementLog(store)
        let first = try #require(sessions.first)
        #expect((first.value(forKey: "persons") as? [ManagedObject])?.count == 1)
        #expect(first.objects(forKey: "notes").compactMap { $0.value(forKey: "text") as? String } == ["bring a laptop"])
        // One query for the first session's two lists (the note's row is one more).
        #expect(log.rowQueries == 2)
    }

    /// A list whose owner's record is gone from the store when it is first used reads as empty.
    @Test func aListWhoseRecordIsGoneReadsEmpty() throws {
        let (fixture, _) = try populated()
        let context = fixture.context()
        let sessions = try sessionsWithRooms(context)
        let r1 = try #require(sessions["s001"]?.value(forKey: "room") as? ManagedObject)
        #expect(r1.value(forKey: "name") as? String == "R1")
        let other = fixture.context()
        let rooms = FetchRequest(entityName: "Room")
        rooms.predicate = try ObjectPredicate(format: "name == 'R1'")
        other.delete(try #require(try other.fetch(rooms).first))
        try other.save()
        #expect(r1.objects(forKey: "sessions").isEmpty)
    }

    /// A further hop through the destinations' lists reads them with the rows, and a fault read earlier without
    /// them is read again for it.
    @Test func aHopThroughTheListsReadsThemWithTheRows() throws {
        let (fixture, store) = try populated()
        let context = fixture.context()
        _ = try sessionsWithRooms(context)
        let log = try StatementLog(store)
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "guid == 's000'")
        request.relationshipKeyPathsForPrefetching = ["room.sessions"]
        let found = try context.fetch(request)
        // The fetch, and the room read again with its list (a few rows take their lists in the row query).
        #expect(log.rowQueries == 2)
        let room = try #require(found.first?.value(forKey: "room") as? ManagedObject)
        #expect(guids(room).count == 40)
        #expect(log.rowQueries == 2)
    }
}
