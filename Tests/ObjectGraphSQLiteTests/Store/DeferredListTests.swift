import CSQLite
import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Reads of many rows list their to-many destinations with one query per relationship after the rows; reads of a
/// few rows list them in the row. Both must give the same records: orders of ordered relationships, destinations of
/// sub-entities, empty lists (no value), and owners split into several statements past the parameter limit.
@Suite("SQLite store: to-many lists read after the rows")
struct DeferredListTests {
    /// Sessions (some workshops, a sub-entity in the same table) in rooms, with ordered persons (a join table read
    /// from both sides) and notes; some sessions have none of them.
    private func populated(_ fixture: Fixture) throws -> (SQLiteStore, [ManagedObjectID]) {
        let store = try #require(try fixture.addStore() as? SQLiteStore)
        let context = fixture.context()
        let rooms = (0..<4).map { index in
            let room = context.insertNewObject(forEntityName: "Room")
            room.setValue("Room \(index)", forKey: "name")
            return room
        }
        let persons = (0..<90).map { index in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("Person \(index)", forKey: "name")
            return person
        }
        for index in 0..<150 {
            let session: ManagedObject
            if index % 5 == 0 {
                session = context.insertNewObject(forEntityName: "Workshop")
                session.setValue(String(format: "w%03d", index), forKey: "guid")
                session.setValue("Workshop \(index)", forKey: "title")
            } else {
                session = context.makeSession(String(format: "s%03d", index))
            }
            guard index % 7 != 0 else { continue }  // no room, persons or notes
            session.setValue(rooms[index % rooms.count], forKey: "room")
            // Out of key order, so that the order column decides.
            let chosen = [persons[(index * 13) % 90], persons[(index * 7 + 3) % 90], persons[index % 90]]
            var seen = Set<ObjectIdentifier>()
            let distinct: [ManagedObject] = chosen.filter { seen.insert(ObjectIdentifier($0)).inserted }
            session.setValue(distinct, forKey: "persons")
            if index % 3 == 0 {
                let note = context.insertNewObject(forEntityName: "Note")
                note.setValue("Note \(index)", forKey: "text")
                session.setValue(Set([note]), forKey: "notes")
            }
        }
        try context.save()
        return (store, context.registeredObjects.map { (object: ManagedObject) in object.objectID })
    }

    /// A record's values as text, keys in order, so that two reads compare.
    private func describe(_ record: StoreRecord) -> String {
        record.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    @Test func manyRowsAndFewRowsReadTheSameLists() throws {
        let fixture = Fixture(.sqlite)
        let (store, ids) = try populated(fixture)
        #expect(ids.count > 2 * SQLiteStore.fewestRowsForListQueries)
        // One by one: the lists come in each row.
        var single: [ManagedObjectID: String] = [:]
        for id in ids { single[id] = describe(try #require(try store.record(for: id))) }
        #expect(single.values.contains { $0.contains("persons=[") && $0.contains("room=") })
        #expect(single.values.contains { $0.contains("notes=[") })

        let log = try StatementLog(store)
        // Many at once, in one batch and then in batches split by a lower parameter limit.
        let batch = try store.records(for: ids)
        #expect(log.listQueries > 0)
        #expect(Dictionary(uniqueKeysWithValues: batch.map { ($0.objectID, describe($0)) }) == single)
        let connection = try store.openConnection()
        let old = sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 40)
        defer { sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, old) }
        log.reset()
        let split = try store.records(for: ids)
        #expect(Dictionary(uniqueKeysWithValues: split.map { ($0.objectID, describe($0)) }) == single)
        #expect(log.statements.allSatisfy { $0.components(separatedBy: "?").count - 1 <= 40 })

        // Fetches of whole entities, sub-entities included, and a fetch limited to a few rows.
        let model = fixture.coordinator.managedObjectModel
        for name in ["Session", "Person", "Room", "Note"] {
            let entity = try #require(model.entitiesByName[name])
            let names = Set(entity.selfAndDescendants.map { (entity: EntityDescription) in entity.name })
            let fetched = try store.fetch(
                StoreFetchRequest(
                    entity: entity, entityNames: names, predicate: nil,
                    sortKeys: [], limit: 0))
            #expect(!fetched.isEmpty)
            for result in fetched { #expect(result.record.map(describe) == single[result.objectID], "\(name)") }
            let few = try store.fetch(
                StoreFetchRequest(
                    entity: entity, entityNames: names, predicate: nil,
                    sortKeys: [], limit: 5))
            #expect(few.count == min(5, fetched.count))
            for result in few { #expect(result.record.map(describe) == single[result.objectID], "\(name)") }
        }
    }

    /// Fetches share the reader of their rows when they read the same entities and properties, whatever their
    /// predicates and constants: each reads what single reads give, with the properties it asked for, whether it
    /// came first or after others (a key path that joins the rooms' table, a few rows with their lists in the row,
    /// many rows with their lists read after them, another entity, some properties only).
    @Test func fetchesWithOtherPredicatesShareReadersAndReadTheirOwnRows() throws {
        let fixture = Fixture(.sqlite)
        let (store, ids) = try populated(fixture)
        var single: [ManagedObjectID: String] = [:]
        for id in ids { single[id] = describe(try #require(try store.record(for: id))) }
        let model = fixture.coordinator.managedObjectModel
        func rooms(_ format: String, limit: Int, properties: [String]? = nil) throws -> [StoreFetchResult] {
            let entity = try #require(model.entitiesByName["Room"])
            return try store.fetch(
                StoreFetchRequest(
                    entity: entity, entityNames: Set(entity.selfAndDescendants.map(\.name)),
                    predicate: try ObjectPredicate(format: format), sortKeys: [SortKey("name")], limit: limit,
                    propertiesToFetch: properties))
        }
        func expectWhole(_ results: [StoreFetchResult], count: Int, _ comment: Comment) {
            #expect(results.count == count, comment)
            for result in results { #expect(result.record.map(describe) == single[result.objectID], comment) }
        }
        let made = store.recordReaders.count
        for limit in [5, 0] {
            let sessions = { (format: String) in
                try store.fetch(
                    StoreFetchRequest(
                        entity: try #require(model.entitiesByName["Session"]),
                        entityNames: ["Session", "Workshop"], predicate: try ObjectPredicate(format: format),
                        sortKeys: [SortKey("title")], limit: limit))
            }
            let some = try sessions("title BEGINSWITH 'Talk'")
            expectWhole(some, count: limit == 0 ? 120 : 5, "no join, limit \(limit)")
            let inRoom = try sessions("room.name == 'Room 1'")
            #expect(!inRoom.isEmpty)
            expectWhole(inRoom, count: limit == 0 ? inRoom.count : 5, "a join, limit \(limit)")
            let others = try sessions("title BEGINSWITH 'Workshop'")
            expectWhole(others, count: limit == 0 ? 30 : 5, "no join again, other constant, limit \(limit)")
            expectWhole(try rooms("name BEGINSWITH 'Room'", limit: limit), count: 4, "another entity, limit \(limit)")
            let names = try rooms("name != 'Room 0'", limit: limit, properties: ["name"])
            #expect(names.count == 3)
            #expect(names.allSatisfy { $0.record?.values.keys.sorted() == ["name"] }, "some properties only")
        }
        // Sessions without and with a join, rooms, rooms' names: four readers per limit, each made once.
        #expect(store.recordReaders.count == made + 8)
    }

    /// The store keeps at most `RecordReaderCache.limit` record readers and drops them all when a new one would pass
    /// it: fetches of more distinct shapes than that (properties to fetch, lists in the row or after it) each still
    /// read exactly the values their properties name, before and after the readers are dropped, and a shape read
    /// again after the drop is read as before.
    @Test func recordReadersPastTheCacheLimitAreDroppedAndMadeAgain() throws {
        let fixture = Fixture(.sqlite)
        let (store, ids) = try populated(fixture)
        var whole: [ManagedObjectID: StoreRecord] = [:]
        for id in ids {
            let record = try #require(try store.record(for: id))
            whole[id] = record
        }
        let model = fixture.coordinator.managedObjectModel
        let session = try #require(model.entitiesByName["Session"])
        let keys = ["guid", "title", "code", "duration", "start", "room", "persons"]
        // Every non-empty subset of the keys, read a few rows at a time (lists in the row) and all at once (lists
        // after the rows): 254 shapes, four times the limit.
        let shapes = (1..<(1 << keys.count)).flatMap { mask in
            let properties = keys.indices.filter { mask & (1 << $0) != 0 }.map { keys[$0] }
            return [(properties, 5), (properties, 0)]
        }
        #expect(shapes.count > 3 * RecordReaderCache.limit)
        func read(_ properties: [String], limit: Int) throws -> [StoreFetchResult] {
            try store.fetch(
                StoreFetchRequest(
                    entity: session, entityNames: ["Session", "Workshop"], predicate: nil,
                    sortKeys: [SortKey("guid")], limit: limit, propertiesToFetch: properties))
        }
        func expectRead(_ results: [StoreFetchResult], _ properties: [String], limit: Int) {
            #expect(results.count == (limit == 0 ? 150 : limit), "\(properties), limit \(limit)")
            for result in results {
                guard let record = result.record, let full = whole[result.objectID] else {
                    Issue.record("no record for \(result.objectID) reading \(properties)")
                    continue
                }
                let named = full.values.filter { properties.contains($0.key) }
                let expected = describe(StoreRecord(objectID: result.objectID, values: named))
                #expect(describe(record) == expected, "\(properties), limit \(limit)")
            }
        }
        var drops = 0
        var previous = store.recordReaders.count
        for (properties, limit) in shapes {
            expectRead(try read(properties, limit: limit), properties, limit: limit)
            let count = store.recordReaders.count
            #expect(count <= RecordReaderCache.limit)
            if count < previous { drops += 1 }
            previous = count
        }
        #expect(drops >= 3, "the readers were dropped \(drops) times for \(shapes.count) shapes")
        // The first shape again, long after its reader was dropped: made again, and read the same.
        let (first, firstLimit) = shapes[0]
        let before = store.recordReaders.count
        expectRead(try read(first, limit: firstLimit), first, limit: firstLimit)
        #expect(store.recordReaders.count == (before == RecordReaderCache.limit ? 1 : before + 1))
        // And once more: now from the cache, no new reader.
        expectRead(try read(first, limit: firstLimit), first, limit: firstLimit)
        #expect(store.recordReaders.count == (before == RecordReaderCache.limit ? 1 : before + 1))
    }

    /// A batch read of some objects gives exactly those the store holds, each as a read of its own gives it:
    /// keys close together are read as one range whose other rows (objects not asked for, rows of another entity
    /// in the same table) are skipped, keys far apart as a list; deleted objects are left out either way.
    @Test func batchReadsOfSomeObjectsGiveExactlyThose() throws {
        let fixture = Fixture(.sqlite)
        let (store, ids) = try populated(fixture)
        var single: [ManagedObjectID: String] = [:]
        for id in ids { single[id] = describe(try #require(try store.record(for: id))) }
        let sessions = ids.filter { $0.entityName == "Session" }.sorted { $0.referenceKey < $1.referenceKey }
        // Deleted in the store: asked for, not returned.
        let deleted = Array(sessions.suffix(4))
        let context = fixture.context()
        for id in deleted { context.delete(try context.existingObject(with: id)) }
        try context.save()

        let log = try StatementLog(store)
        // Every other row of the sessions' table (keys close: one range, the rows between not returned, and
        // enough rows for the lists to be read after them, again as a range over owners not all asked for),
        // every third session (far apart: a list), every other row of the table's first forty.
        let table = ids.filter { ["Session", "Workshop"].contains($0.entityName) }
            .sorted { $0.referenceKey < $1.referenceKey }
        let everyOther = table.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(everyOther.count >= SQLiteStore.fewestRowsForListQueries)
        let everyThird = sessions.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        let mixed = table.prefix(40).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(Set(mixed.map(\.entityName)) == ["Session", "Workshop"])
        for (asked, range) in [(everyOther, true), (everyThird, false), (mixed, true)] {
            log.reset()
            let read = try store.records(for: asked)
            let expected = Set(asked).subtracting(deleted)
            #expect(read.count == expected.count)
            #expect(Set(read.map(\.objectID)) == expected)
            for record in read { #expect(describe(record) == single[record.objectID]) }
            let rowQuery = try #require(log.statements.first { !$0.hasPrefix("SELECT l.") })
            #expect(rowQuery.contains("BETWEEN") == range, "\(rowQuery)")
        }
    }

    /// The persons' order is the order they were set in, whichever way the lists are read; an owner without
    /// destinations has no value rather than an empty list.
    @Test func orderedListsKeepTheirOrderAndEmptyListsStayAbsent() throws {
        let fixture = Fixture(.sqlite)
        _ = try populated(fixture)
        let context = fixture.context()
        let sessions = try context.fetch(FetchRequest(entityName: "Session"))
        #expect(sessions.count == 150)
        for session in sessions {
            let guid = try #require(session.value(forKey: "guid") as? String)
            let index = try #require(Int(guid.dropFirst()))
            let names = session.objects(forKey: "persons").compactMap { $0.value(forKey: "name") as? String }
            if index % 7 == 0 {
                #expect(names.isEmpty && session.value(forKey: "room") == nil)
                continue
            }
            var expected: [String] = []
            for person in [(index * 13) % 90, (index * 7 + 3) % 90, index % 90].map({ "Person \($0)" })
            where !expected.contains(person) {
                expected.append(person)
            }
            #expect(names == expected, "\(guid)")
            #expect(session.objects(forKey: "notes").count == (index % 3 == 0 ? 1 : 0), "\(guid)")
        }
    }
    /// Another process's commit between the rows and their lists is not seen: both come from one snapshot. The
    /// commit (every session's persons unlinked) is made from another connection when the first list query starts.
    @Test func rowsAndTheirListsComeFromOneSnapshot() throws {
        let fixture = Fixture(.sqlite)
        let (store, _) = try populated(fixture)
        let url = try #require(store.url)
        let tables = try rawRows(
            url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%PERSONS' ESCAPE '\\'")
        let joinTable = try #require(tables.first)
        final class Interloper {
            let other: SQLiteConnection
            let sql: String
            var committed = false
            init(_ other: SQLiteConnection, _ sql: String) {
                self.other = other
                self.sql = sql
            }
        }
        let interloper = Interloper(try SQLiteConnection(path: url.path), "DELETE FROM \(joinTable)")
        let handle = try #require(store.connection?.handle)
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, _, text in
                guard let context, let text else { return 0 }
                let interloper = Unmanaged<Interloper>.fromOpaque(context).takeUnretainedValue()
                let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
                if !interloper.committed, sql.hasPrefix("SELECT l.") {
                    interloper.committed = true
                    try? interloper.other.execute(interloper.sql)
                }
                return 0
            }, Unmanaged.passUnretained(interloper).toOpaque())
        defer { sqlite3_trace_v2(handle, 0, nil, nil) }

        let entity = try #require(fixture.coordinator.managedObjectModel.entitiesByName["Session"])
        let fetched = try store.fetch(
            StoreFetchRequest(
                entity: entity, entityNames: ["Session", "Workshop"], predicate: nil, sortKeys: [], limit: 0))
        #expect(interloper.committed)
        #expect(try rawRows(url, "SELECT COUNT(*) FROM \(joinTable)") == ["0"])
        // As the rows were read: 150 sessions, all but every seventh with persons.
        #expect(fetched.count == 150)
        #expect(fetched.filter { ($0.record?["persons"] as? [ManagedObjectID])?.isEmpty == false }.count == 128)
        withExtendedLifetime(interloper) {}
    }
}
