import CSQLite
import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Counts the SQL statements a connection starts (SQLite's `SQLITE_TRACE_STMT`), keeping their text.
/// Transaction control (`BEGIN`/`COMMIT` around a read of rows and their lists) is not counted.
final class StatementLog {
    private(set) var statements: [String] = []
    private let handle: OpaquePointer

    init(_ store: PersistentStore) throws {
        let sqlite = try #require(store as? SQLiteStore)
        handle = try #require(sqlite.connection?.handle)
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            let log = Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue()
            let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
            if !sql.hasPrefix("--"), !["BEGIN", "COMMIT", "ROLLBACK"].contains(sql) { log.statements.append(sql) }
            return 0
        }, context)
    }

    deinit { sqlite3_trace_v2(handle, 0, nil, nil) }

    var count: Int { statements.count }
    /// The statements that list to-many destinations for many rows read before them (`SELECT l.… WHERE l.… IN (`).
    var listQueries: Int { statements.filter { $0.hasPrefix("SELECT l.") }.count }
    /// The statements that read rows (all but ``listQueries``).
    var rowQueries: Int { count - listQueries }
    func reset() { statements.removeAll() }
}

@Suite("SQLite store: fetchBatchSize")
struct FetchBatchSizeTests {
    /// 23 sessions (5 of them workshops) with rooms, persons and start dates, saved; returns the fixture and store.
    private func populated() throws -> (Fixture, PersistentStore) {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let context = fixture.context()
        let rooms = ["R1", "R2", "R3"].map { name in
            let room = context.insertNewObject(forEntityName: "Room")
            room.setValue(name, forKey: "name")
            return room
        }
        let persons = (0..<4).map { index in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("P\(index)", forKey: "name")
            return person
        }
        for index in 0..<23 {
            let session = index % 5 == 4
                ? context.insertNewObject(forEntityName: "Workshop") : context.insertNewObject(forEntityName: "Session")
            session.setValue(String(format: "g%02d", (index * 7) % 23), forKey: "guid")
            session.setValue("Talk \(index % 6)", forKey: "title")
            session.setValue((index * 13) % 90, forKey: "duration")
            if index % 4 != 0 {
                session.setValue(Date(timeIntervalSinceReferenceDate: Double(index % 9) * 3600), forKey: "start")
            }
            if index % 3 != 2 { session.setValue(rooms[index % 3], forKey: "room") }
            session.setValue(Array(persons.prefix(index % 4).reversed()), forKey: "persons")
            if session.entity.name == "Workshop" { session.setValue(index, forKey: "capacity") }
        }
        try context.save()
        return (fixture, store)
    }

    /// What a test compares: the ID and every persistent value, relationships as destination IDs.
    private func snapshot(_ object: ManagedObject) -> String {
        let values = object.entity.allProperties.filter { !$0.isTransient && !($0 is FetchedPropertyDescription) }
            .sorted { $0.name < $1.name }.map { property -> String in
                let value = object.value(forKey: property.name)
                let text: String
                switch value {
                case let related as ManagedObject: text = related.objectID.description
                case let ordered as [ManagedObject]: text = ordered.map(\.objectID.description).joined(separator: ",")
                case let set as Set<ManagedObject>:
                    text = set.map(\.objectID.description).sorted().joined(separator: ",")
                case nil: text = "nil"
                case let value?: text = "\(value)"
                }
                return "\(property.name)=\(text)"
            }
        return object.objectID.description + " " + values.joined(separator: " ")
    }

    @Test func batchedFetchReadsIDsFirstThenOneQueryPerBatchAsTheResultsAreWalked() throws {
        let (fixture, store) = try populated()
        let context = fixture.context()
        let log = try StatementLog(store)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        request.fetchBatchSize = 5
        let results = try context.fetch(request)
        #expect(results.count == 23)
        #expect(log.count == 1)
        #expect(log.statements.first.map { !$0.contains("ZTITLE") } == true)
        #expect(results.allSatisfy { $0.isFault })

        _ = results[0].value(forKey: "title")
        #expect(log.count == 2)
        #expect(results[0..<5].allSatisfy { !$0.isFault })
        #expect(results[5...].allSatisfy { $0.isFault })

        _ = results[12].value(forKey: "duration")
        #expect(log.count == 3)
        #expect(results[10..<15].allSatisfy { !$0.isFault })
        #expect(results[5..<10].allSatisfy { $0.isFault } && results[15...].allSatisfy { $0.isFault })

        for object in results { _ = object.value(forKey: "guid") }
        #expect(log.count == 1 + 5)
        #expect(log.statements.dropFirst().allSatisfy { $0.contains("Z_PK IN (") })
        #expect(results.map { $0.value(forKey: "guid") as? String } == (0..<23).map { String(format: "g%02d", $0) })
        withExtendedLifetime(context) {}  // faults fire through their context, which objects do not keep alive
    }

    @Test func unbatchedFetchStillLoadsValuesWithTheIDs() throws {
        let (fixture, store) = try populated()
        let context = fixture.context()
        let log = try StatementLog(store)
        // Faults (Core Data's default), each keeping the values its row brought: firing them asks nothing more.
        let results = try context.fetch(FetchRequest(entityName: "Session"))
        #expect(results.count == 23 && results.allSatisfy { $0.isFault })
        // The rows, then the lists of Session's two to-many relationships (persons, notes), each with one query for
        // all the rows.
        #expect(log.rowQueries == 1 && log.listQueries == 2)
        for object in results { _ = object.value(forKey: "title") }
        #expect(results.allSatisfy { !$0.isFault })
        #expect(log.count == 3)

        let request = FetchRequest(entityName: "Session")
        request.returnsObjectsAsFaults = false
        let loaded = try fixture.context().fetch(request)
        #expect(loaded.count == 23 && loaded.allSatisfy { !$0.isFault })
        #expect(log.rowQueries == 2 && log.listQueries == 4)
        withExtendedLifetime(context) {}
    }

    struct Shape: CustomStringConvertible, Sendable {
        var predicate: String?
        var sortKeys: [SortKey] = []
        var limit = 0
        var offset = 0
        var batchSize: Int
        var includesSubentities = true
        var description: String {
            "\(predicate ?? "all") sorted \(sortKeys.map(\.keyPath)) limit \(limit) offset \(offset) batch \(batchSize)"
        }
    }

    static let shapes: [Shape] = [
        Shape(batchSize: 4),
        Shape(batchSize: 1),
        Shape(predicate: "duration > 20", sortKeys: [SortKey("start", ascending: false), SortKey("guid")],
              batchSize: 3),
        Shape(sortKeys: [SortKey("title"), SortKey("guid", ascending: false)], limit: 7, offset: 5, batchSize: 2),
        Shape(predicate: "room.name == 'R1'", sortKeys: [SortKey("guid")], offset: 2, batchSize: 10),
        Shape(sortKeys: [SortKey("duration"), SortKey("guid")], limit: 9, batchSize: 50),
        Shape(predicate: "persons.@count >= 2", sortKeys: [SortKey("room.name"), SortKey("guid")], batchSize: 3),
        Shape(predicate: "title BEGINSWITH[c] 'talk'", batchSize: 6, includesSubentities: false),
    ]

    @Test(arguments: shapes)
    func batchedResultsEqualUnbatchedOnes(_ shape: Shape) throws {
        let (fixture, store) = try populated()
        func fetch(batchSize: Int) throws -> (objects: [ManagedObject], context: ManagedObjectContext) {
            let context = fixture.context()
            let request = FetchRequest(entityName: "Session")
            request.predicate = try shape.predicate.map { try ObjectPredicate(format: $0) }
            request.sortKeys = shape.sortKeys
            request.fetchLimit = shape.limit
            request.fetchOffset = shape.offset
            request.fetchBatchSize = batchSize
            request.includesSubentities = shape.includesSubentities
            return (try context.fetch(request), context)
        }
        let plain = try fetch(batchSize: 0)
        let log = try StatementLog(store)
        let batched = try fetch(batchSize: shape.batchSize)
        #expect(batched.objects.map(\.objectID) == plain.objects.map(\.objectID))
        #expect(!batched.objects.isEmpty)
        let faults = batched.objects.filter { $0.isFault }.count
        #expect(faults == batched.objects.count)
        let afterIDs = log.count
        #expect(batched.objects.map(snapshot) == plain.objects.map(snapshot))
        let batchQueries = log.statements.dropFirst(afterIDs).filter { $0.contains("Z_PK IN (") }.count
        let batches = (batched.objects.count + shape.batchSize - 1) / shape.batchSize
        #expect(batchQueries == batches)
        withExtendedLifetime((plain.context, batched.context)) {}
    }

    @Test func refreshedObjectFaultsAloneAndGoneRowsBecomeInvalid() throws {
        let (fixture, store) = try populated()
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        request.fetchBatchSize = 4
        let results = try context.fetch(request)
        // Another context deletes g02 (in the first batch) before the batch is read.
        let other = fixture.context()
        let doomed = try #require(try other.all("Session").first { $0.value(forKey: "guid") as? String == "g02" })
        other.delete(doomed)
        try other.save()

        let log = try StatementLog(store)
        #expect(results[0].value(forKey: "guid") as? String == "g00")
        #expect(log.count == 1)
        #expect(results[2].isInvalid)
        #expect(results[1].value(forKey: "guid") as? String == "g01" && results[3].isFault == false)

        context.refresh(results[1], mergeChanges: false)
        #expect(results[1].isFault)
        log.reset()
        #expect(results[1].value(forKey: "guid") as? String == "g01")
        #expect(log.count == 1 && log.statements.first?.contains("Z_PK = ?") == true)
        #expect(results[4].isFault)
    }

    @Test func pendingChangesTakePartInABatchedFetch() throws {
        let (fixture, _) = try populated()
        let context = fixture.context()
        context.makeSession("g99", title: "New")
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid", ascending: false)]
        request.fetchLimit = 3
        request.fetchBatchSize = 2
        let guids = try context.fetch(request).map { $0.value(forKey: "guid") as? String }
        #expect(guids == ["g99", "g22", "g21"])
    }
}
