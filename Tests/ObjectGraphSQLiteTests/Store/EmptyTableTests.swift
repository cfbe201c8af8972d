import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// A fetch or count of an entity whose table was empty when last seen reads one row of the table in place of the
/// request (no query compiled), and still finds what another connection wrote since.
@Suite("SQLite store: entities the store holds none of")
struct EmptyTableTests {
    /// The probe of the sessions' table, as the statement log shows it.
    static let probe = #"SELECT 1 FROM "ZSESSION" LIMIT 1"#

    /// A new store with rooms and no sessions, saved, and a second coordinator on the same file.
    private func roomsOnly() throws -> (Fixture, PersistentStore, PersistentStoreCoordinator) {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let writer = fixture.context()
        for name in ["R0", "R1"] { writer.insertNewObject(forEntityName: "Room").setValue(name, forKey: "name") }
        try writer.save()
        let other = PersistentStoreCoordinator(managedObjectModel: fixture.model)
        try other.addPersistentStore(type: .sqlite, at: store.url)
        return (fixture, store, other)
    }

    private static func sessions(startingBefore hours: Double) throws -> FetchRequest {
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(
            format: "start < %@", argumentArray: [Date(timeIntervalSinceReferenceDate: hours * 3600)])
        request.sortKeys = [SortKey("start")]
        return request
    }

    @Test func anEmptyTableIsReadOnceInPlaceOfTheRequestAndAnotherConnectionsRowsAreFound() throws {
        let (fixture, store, other) = try roomsOnly()
        let log = try StatementLog(store)
        let context = fixture.context()
        // Every moment is a new predicate: each fetch and count asks the table, nothing else.
        for hour in 1...3 {
            #expect(try context.fetch(Self.sessions(startingBefore: Double(hour))).isEmpty)
            #expect(try context.count(for: Self.sessions(startingBefore: Double(hour))) == 0)
        }
        #expect(log.statements == Array(repeating: Self.probe, count: 6))
        // Another connection saves sessions: the next fetch finds the table filled, runs the request and finds them.
        let writer = ManagedObjectContext(coordinator: other)
        for index in 0..<4 {
            writer.makeSession("s\(index)", start: Date(timeIntervalSinceReferenceDate: Double(index) * 3600))
        }
        try writer.save()
        log.reset()
        let found = try context.fetch(Self.sessions(startingBefore: 2.5))
        #expect(found.compactMap { $0.value(forKey: "guid") as? String } == ["s0", "s1", "s2"])
        // The probe, then the request's rows (and the lists of to-many relationships read after them).
        #expect(log.statements.first == Self.probe && log.rowQueries == 2)
        // The table is no longer asked about.
        log.reset()
        #expect(try context.count(for: Self.sessions(startingBefore: 1.5)) == 2)
        #expect(try context.fetch(Self.sessions(startingBefore: 3.5)).count == 4)
        #expect(log.rowQueries == 2 && !log.statements.contains(Self.probe))
    }

    @Test func aTableThisStoreWritesToIsNotAskedAbout() throws {
        let (fixture, store, _) = try roomsOnly()
        let writer = fixture.context()
        writer.makeSession("s0", start: Date(timeIntervalSinceReferenceDate: 0))
        try writer.save()
        let log = try StatementLog(store)
        let found = try fixture.context().fetch(Self.sessions(startingBefore: 1))
        #expect(found.count == 1)
        #expect(log.rowQueries == 1 && log.statements.first != Self.probe)
    }

    @Test func aTableWithRowsAtOpeningIsNotAskedAbout() throws {
        let (_, _, other) = try roomsOnly()
        let log = try StatementLog(try #require(other.persistentStores.first))
        let rooms = FetchRequest(entityName: "Room")
        rooms.predicate = try ObjectPredicate(format: "name == 'R1'")
        #expect(try ManagedObjectContext(coordinator: other).fetch(rooms).count == 1)
        #expect(log.rowQueries == 1 && !log.statements.contains { $0.hasPrefix("SELECT 1 FROM") })
    }
}
