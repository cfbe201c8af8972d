import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Grouped fetches compiled to SQL must give what the in-memory evaluation gives (as for predicates, see
/// `DifferentialCorpusTests`); prefetching must read each hop with one query.
@Suite("SQLite store: aggregates and prefetching")
struct AggregateFetchTests {
    /// The same 60 sessions (and a few workshops) in an in-memory store and in an SQLite store.
    private func twins() throws -> (memory: Fixture, sqlite: Fixture, store: PersistentStore) {
        let memory = Fixture(.inMemory)
        try memory.addStore()
        let sqlite = Fixture(.sqlite)
        let store = try sqlite.addStore()
        for fixture in [memory, sqlite] {
            let context = fixture.context()
            try SessionRow.insert(SessionRow.make(60), into: context)
            for index in 0..<5 {
                let workshop = context.insertNewObject(forEntityName: "Workshop")
                workshop.setValue("w\(index)", forKey: "guid")
                workshop.setValue("Talk \(index % 2)", forKey: "title")
                workshop.setValue(index * 20, forKey: "duration")
                workshop.setValue(index + 10, forKey: "capacity")
            }
            try context.save()
        }
        return (memory, sqlite, store)
    }

    /// Results as sorted lines of text, for comparing stores.
    private func lines(_ rows: [[String: any Sendable]]) -> [String] {
        ordered(rows).sorted()
    }

    /// Results as lines of text, in order.
    private func ordered(_ rows: [[String: any Sendable]]) -> [String] {
        rows.map { row in row.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    private static let groupings: [[String]] = [
        [], ["room.name"], ["title"], ["duration"], ["start"],
        ["room.name", "title"],
    ]
    private static let predicates: [String?] = [
        nil, "duration > 30", "room.name BEGINSWITH 'R2'",
        "title IN {'Talk 1', 'Talk 2'} OR start == nil",
    ]

    private static func aggregates() -> [ExpressionDescription] {
        let functions = ["count:", "sum:", "average:", "min:", "max:"]
        var descriptions = functions.map { name in
            ExpressionDescription(
                name: "d_" + name.dropLast(),
                expression: ObjectExpression(forFunction: name, arguments: [.keyPath("duration")]))
        }
        descriptions += ["min:", "max:", "count:"].flatMap { name in
            ["title", "start", "room.name"].map { key in
                ExpressionDescription(
                    name: "\(key)_\(name.dropLast())",
                    expression: ObjectExpression(forFunction: name, arguments: [.keyPath(key)]))
            }
        }
        descriptions.append(ExpressionDescription(name: "all", expression: .keyPath("@count")))
        descriptions.append(
            ExpressionDescription(
                name: "mean", expression: .keyPath("@avg.duration"),
                resultType: .double))
        return descriptions
    }

    @Test func groupedFetchesCompileToGroupByAndMatchTheInMemoryEvaluation() throws {
        let (memory, sqlite, store) = try twins()
        let log = try StatementLog(store)
        var compared = 0
        for grouping in Self.groupings {
            for format in Self.predicates {
                for subentities in [true, false] {
                    let request = FetchRequest(entityName: "Session")
                    request.includesSubentities = subentities
                    request.predicate = try format.map { try ObjectPredicate(format: $0) }
                    request.propertiesToGroupBy = grouping
                    request.propertiesToFetch = grouping + Self.aggregates()
                    let expected = try memory.context().fetchDictionaries(request)
                    log.reset()
                    let actual = try sqlite.context().fetchDictionaries(request)
                    #expect(lines(actual) == lines(expected), "\(grouping) \(format ?? "all")")
                    #expect(
                        log.statements.filter { $0.contains("SUM(") }.count == 1,
                        "compiled to SQL: \(grouping) \(format ?? "all")")
                    #expect(!grouping.isEmpty == log.statements.contains { $0.contains("GROUP BY") })
                    compared += 1
                }
            }
        }
        #expect(compared == Self.groupings.count * Self.predicates.count * 2)
    }

    @Test func havingSortAndDistinctMatchTheInMemoryEvaluation() throws {
        let (memory, sqlite, _) = try twins()
        let request = FetchRequest(entityName: "Session")
        request.propertiesToGroupBy = ["title", "room.name"]
        request.propertiesToFetch = ["title", "room.name", Aggregates.count, Aggregates.total]
        request.havingPredicate = try ObjectPredicate(format: "count >= 4 AND total > 150")
        request.sortKeys = [SortKey("total", ascending: false), SortKey("title")]
        request.fetchLimit = 5
        request.fetchOffset = 1
        let expected = try memory.context().fetchDictionaries(request)
        #expect(expected.count == 5)
        #expect(ordered(try sqlite.context().fetchDictionaries(request)) == ordered(expected))

        let distinct = FetchRequest(entityName: "Session")
        distinct.propertiesToFetch = ["room.name", "title"]
        distinct.returnsDistinctResults = true
        distinct.sortKeys = [SortKey("room.name"), SortKey("title", ascending: false)]
        let distinctRows = try sqlite.context().fetchDictionaries(distinct)
        #expect(ordered(distinctRows) == ordered(try memory.context().fetchDictionaries(distinct)))
        // Every title in each of the 3 rooms and with none (workshops have no room).
        #expect(distinctRows.count == 16)
    }

    @Test func anAggregateOfTextWithSumFailsAsInMemory() throws {
        let (memory, sqlite, _) = try twins()
        let request = FetchRequest(entityName: "Session")
        request.propertiesToFetch = [
            ExpressionDescription(
                name: "nonsense", expression: ObjectExpression(forFunction: "sum:", arguments: [.keyPath("title")]))
        ]
        for fixture in [memory, sqlite] {
            #expect(throws: ObjectPredicateError.self) { try fixture.context().fetchDictionaries(request) }
        }
    }

    /// 1,000 sessions, each in its own room: following every room costs one query per room without prefetching,
    /// and nothing with it (the fetch and one query for the rooms).
    @Test func prefetchingReadsEachHopWithOneQuery() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let writer = fixture.context()
        var persons: [ManagedObject] = []
        for index in 0..<10 {
            let person = writer.insertNewObject(forEntityName: "Person")
            person.setValue("P\(index)", forKey: "name")
            persons.append(person)
        }
        for index in 0..<1_000 {
            let session = writer.makeSession(String(format: "s%04d", index))
            let room = writer.insertNewObject(forEntityName: "Room")
            room.setValue("Room \(index)", forKey: "name")
            session.setValue(room, forKey: "room")
            session.setValue([persons[index % 10], persons[(index + 3) % 10]], forKey: "persons")
        }
        try writer.save()
        let log = try StatementLog(store)

        func fetchAndFollowRooms(prefetching keyPaths: [String]) throws -> [String] {
            let context = fixture.context()
            let request = FetchRequest(entityName: "Session")
            request.relationshipKeyPathsForPrefetching = keyPaths
            let sessions = try context.fetch(request)
            let names = sessions.compactMap {
                ($0.value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String
            }
            withExtendedLifetime(context) {}
            return names
        }
        log.reset()
        // Lists of to-many destinations come with one query per relationship for all the rows read (Session has two),
        // in the same query as the row for one object.
        #expect(try fetchAndFollowRooms(prefetching: []).count == 1_000)
        #expect(log.rowQueries == 1_001 && log.listQueries == 2)
        log.reset()
        #expect(try fetchAndFollowRooms(prefetching: ["room"]).count == 1_000)
        // The sessions' lists; the rooms' lists of sessions are left until one is used (no key path goes on).
        #expect(log.rowQueries == 2 && log.listQueries == 2)

        // To-many and several hops: sessions, their persons, their rooms and the rooms' sessions.
        log.reset()
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "guid < 's0100'")
        request.relationshipKeyPathsForPrefetching = ["persons", "room.sessions", "room"]
        let sessions = try context.fetch(request)
        #expect(sessions.count == 100)
        // The fetch, the persons, the rooms; the rooms' sessions are the fetched ones, whose values are at hand. Lists:
        // the sessions' two, the rooms' one (ten persons are read with their lists in the row).
        #expect(log.rowQueries == 3 && log.listQueries == 3)
        var seen = 0
        for session in sessions {
            let people = session.value(forKey: "persons") as? [ManagedObject] ?? []
            seen += people.compactMap { $0.value(forKey: "name") as? String }.count
            let room = session.value(forKey: "room") as? ManagedObject
            let roomSessions = room?.value(forKey: "sessions") as? Set<ManagedObject> ?? []
            seen += roomSessions.compactMap { $0.value(forKey: "title") as? String }.count
        }
        #expect(seen == 300)
        #expect(log.rowQueries == 3 && log.listQueries == 3)

        // A second hop to objects not read yet: the persons' sessions (all 1,000) come with one more query, without
        // their own lists (no key path goes on from them).
        log.reset()
        let hops = fixture.context()
        request.relationshipKeyPathsForPrefetching = ["persons.sessions"]
        let few = try hops.fetch(request)
        #expect(log.rowQueries == 3 && log.listQueries == 2)
        let reached = few.flatMap { ($0.value(forKey: "persons") as? [ManagedObject]) ?? [] }
            .flatMap { ($0.value(forKey: "sessions") as? Set<ManagedObject>) ?? [] }
        #expect(Set(reached.compactMap { $0.value(forKey: "guid") as? String }).count == 1_000)
        #expect(log.rowQueries == 3 && log.listQueries == 2)
        // A list left out is read with one query of its own when first used.
        let firstReached = try #require(reached.first { ($0.value(forKey: "guid") as? String) == "s0500" })
        let itsPersons = firstReached.value(forKey: "persons") as? [ManagedObject] ?? []
        #expect(Set(itsPersons.compactMap { $0.value(forKey: "name") as? String }) == ["P0", "P3"])
        #expect(log.rowQueries == 4 && log.listQueries == 2)

        let wrong = FetchRequest(entityName: "Session")
        wrong.relationshipKeyPathsForPrefetching = ["title"]
        #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) { try fixture.context().fetch(wrong) }
    }
}
