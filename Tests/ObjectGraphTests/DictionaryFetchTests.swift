import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

@Suite("Fetch result types and dictionaries")
struct DictionaryFetchTests {
    /// A fixture whose store holds `count` saved sessions.
    static func saved(_ count: Int, in kind: StoreKind) throws -> Fixture {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        try SessionRow.insert(SessionRow.make(count), into: writer)
        try writer.save()
        return fixture
    }

    @Test(arguments: StoreKind.all)
    func executeReturnsWhatTheResultTypeAsks(kind: StoreKind) throws {
        let fixture = try Self.saved(12, in: kind)
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        request.fetchLimit = 5
        guard case .objects(let objects) = try context.execute(request) else {
            Issue.record("expected objects")
            return
        }
        #expect(objects.map { $0.value(forKey: "guid") as? String } == ["g0000", "g0001", "g0002", "g0003", "g0004"])
        request.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try context.execute(request) else {
            Issue.record("expected object IDs")
            return
        }
        #expect(ids == objects.map(\.objectID))
        request.resultType = .count
        guard case .count(let count) = try context.execute(request) else {
            Issue.record("expected a count")
            return
        }
        #expect(count == 5)
        request.resultType = .dictionary
        request.propertiesToFetch = ["guid", "room.name", "room"]
        guard case .dictionaries(let rows) = try context.execute(request) else {
            Issue.record("expected dictionaries")
            return
        }
        #expect(rows.map { $0["guid"] as? String } == ["g0000", "g0001", "g0002", "g0003", "g0004"])
        #expect(rows.map { $0["room.name"] as? String } == ["R1", "R2", "R3", "R1", "R2"])
        #expect(rows[0]["room"] as? ManagedObjectID == (objects[0].value(forKey: "room") as? ManagedObject)?.objectID)
        #expect(try context.fetchObjectIDs(request) == ids)
        #expect(try context.count(for: request) == 5)
    }

    @Test(arguments: StoreKind.all)
    func fetchOfANonObjectResultTypeFailsAndRegistersNothing(kind: StoreKind) throws {
        let fixture = try Self.saved(4, in: kind)
        let context = fixture.context()
        for type in [FetchRequestResultType.managedObjectID, .dictionary, .count] {
            let request = FetchRequest(entityName: "Session")
            request.resultType = type
            #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) { try context.fetch(request) }
        }
        #expect(context.registeredObjects.isEmpty)
    }

    @Test(arguments: StoreKind.all)
    func dictionariesHoldTheFetchedPropertiesAndDistinctRows(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        let rows = SessionRow.make(30)
        try SessionRow.insert(rows, into: writer)
        try writer.save()
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.propertiesToFetch = ["title", "room.name"]
        request.predicate = try ObjectPredicate(format: "duration >= 20")
        request.sortKeys = [SortKey("guid", ascending: false)]
        let fetched = try context.fetchDictionaries(request)
        let expected = rows.filter { $0.duration >= 20 }.sorted { $0.guid > $1.guid }
        #expect(fetched.map { $0["title"] as? String } == expected.map(\.title))
        #expect(fetched.map { $0["room.name"] as? String } == expected.map(\.room))
        #expect(fetched.allSatisfy { $0.count == ($0["room.name"] == nil ? 1 : 2) })

        let distinct = FetchRequest(entityName: "Session")
        distinct.propertiesToFetch = ["title"]
        distinct.returnsDistinctResults = true
        distinct.sortKeys = [SortKey("title", ascending: false)]
        distinct.fetchLimit = 3
        #expect(
            try context.fetchDictionaries(distinct).map { $0["title"] as? String } == ["Talk 3", "Talk 2", "Talk 1"])
    }

    @Test(arguments: StoreKind.all)
    func groupedAggregatesMatchAHandComputedReference(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        let rows = SessionRow.make(40)
        try SessionRow.insert(rows, into: writer)
        try writer.save()
        let context = fixture.context()
        let results = try context.fetchDictionaries(Aggregates.perRoom())
        #expect(results.map { $0["room.name"] as? String } == [nil, "R1", "R2", "R3"])
        #expect(Aggregates.byRoom(results) == SessionRow.reference(rows))
        #expect(results.allSatisfy { $0["total"] is Int && $0["mean"] is Double && $0["latest"] is Date })

        let having = Aggregates.perRoom()
        having.havingPredicate = try ObjectPredicate(format: "count > 6 AND total < %d", 480)
        having.sortKeys = [SortKey("total", ascending: false)]
        let reference = SessionRow.reference(rows).filter {
            Int($0.value["count"]!)! > 6 && Int($0.value["total"]!)! < 480
        }
        let filtered = try context.fetchDictionaries(having)
        #expect(Set(filtered.map { $0["room.name"] as? String ?? "nil" }) == Set(reference.keys))
        #expect(filtered.map { $0["total"] as? Int ?? -1 } == reference.values.map { Int($0["total"]!)! }.sorted(by: >))

        let overall = FetchRequest(entityName: "Session")
        overall.resultType = .dictionary
        overall.propertiesToFetch = [Aggregates.count, Aggregates.total]
        overall.predicate = try ObjectPredicate(format: "title == 'Talk 1'")
        let talks = rows.filter { $0.title == "Talk 1" }
        let single = try context.fetchDictionaries(overall)
        #expect(single.count == 1)
        #expect(single.first?["count"] as? Int == talks.count)
        #expect(single.first?["total"] as? Int == talks.map(\.duration).reduce(0, +))

        overall.predicate = try ObjectPredicate(format: "title == 'none'")
        let none = try context.fetchDictionaries(overall)
        #expect(none.count == 1 && none.first?["count"] as? Int == 0 && none.first?["total"] as? Int == 0)
    }

    @Test(arguments: StoreKind.all)
    func groupsHonourPendingChangesUnlessTheRequestExcludesThem(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let rows = SessionRow.make(20)
        try SessionRow.insert(rows, into: context)
        try context.save()
        let extra = SessionRow.make(5, offset: 100)
        try SessionRow.insert(extra, into: context)
        let first = try #require(try context.all("Session", sortedBy: "guid").first)
        context.delete(first)
        let remaining = Array(rows.dropFirst()) + extra
        let request = Aggregates.perRoom()
        #expect(Aggregates.byRoom(try context.fetchDictionaries(request)) == SessionRow.reference(remaining))
        request.includesPendingChanges = false
        #expect(Aggregates.byRoom(try context.fetchDictionaries(request)) == SessionRow.reference(rows))

        let plain = FetchRequest(entityName: "Session")
        plain.propertiesToFetch = ["guid"]
        plain.sortKeys = [SortKey("guid")]
        #expect(
            try context.fetchDictionaries(plain).compactMap { $0["guid"] as? String }
                == remaining.map(\.guid).sorted())
    }

    @Test(arguments: StoreKind.all)
    func invalidDictionaryRequestsFailWithACode(kind: StoreKind) throws {
        let fixture = try Self.saved(6, in: kind)
        let context = fixture.context()
        let ungrouped = FetchRequest(entityName: "Session")
        ungrouped.propertiesToFetch = ["title", Aggregates.total]
        let unknown = FetchRequest(entityName: "Session")
        unknown.propertiesToFetch = ["nonsense"]
        let groupedByAggregate = FetchRequest(entityName: "Session")
        groupedByAggregate.propertiesToFetch = [Aggregates.total]
        groupedByAggregate.propertiesToGroupBy = [Aggregates.total]
        for request in [ungrouped, unknown, groupedByAggregate] {
            #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) {
                try context.fetchDictionaries(request)
            }
        }
        #expect(context.registeredObjects.isEmpty)
        #expect(!context.hasChanges)
    }

    /// Sessions spread over 1, 3 and 10 stores (of one kind, or SQLite and in-memory stores mixed): per-room
    /// groups combine across stores (sums of sums, averages from sums and counts), then sort and limit globally.
    @Test(arguments: [1, 3, 10], [StoreKind.inMemory, StoreKind.sqlite, StoreKind.xml])
    func aggregatesCombineAcrossStores(storeCount: Int, kind: StoreKind) throws {
        let fixture = Fixture(kind)
        var stores: [PersistentStore] = []
        for index in 0..<storeCount {
            // Mixed kinds: every other store of a 3- or 10-store fixture is SQLite.
            let type = kind.type != .sqlite && index % 2 == 1 ? PersistentStoreType.sqlite : kind.type
            let ext = type == .sqlite ? "sqlite" : kind.fileExtension
            stores.append(
                try fixture.coordinator.addPersistentStore(
                    type: type, at: fixture.folder.file("store\(index).\(ext)")))
        }
        let writer = fixture.context()
        var all: [SessionRow] = []
        for (index, store) in stores.enumerated() {
            let rows = SessionRow.make(7 + index * 3, offset: index * 100)
            all += rows
            try SessionRow.insert(rows, into: writer, store: store)
        }
        try writer.save()
        let context = fixture.context()
        let results = try context.fetchDictionaries(Aggregates.perRoom())
        #expect(Aggregates.byRoom(results) == SessionRow.reference(all))
        #expect(results.map { $0["room.name"] as? String } == [nil, "R1", "R2", "R3"])

        let top = Aggregates.perRoom()
        top.sortKeys = [SortKey("total", ascending: false)]
        top.fetchLimit = 2
        let expectedTop = SessionRow.reference(all).map { ($0.key, Int($0.value["total"]!)!) }
            .sorted { $0.1 > $1.1 }.prefix(2)
        #expect(try context.fetchDictionaries(top).map { $0["total"] as? Int } == expectedTop.map(\.1))

        let distinct = FetchRequest(entityName: "Session")
        distinct.propertiesToFetch = ["title"]
        distinct.returnsDistinctResults = true
        distinct.sortKeys = [SortKey("title")]
        #expect(
            try context.fetchDictionaries(distinct).map { $0["title"] as? String }
                == Set(all.map(\.title)).sorted())
    }

    /// `expressionResultType`, Core Data's name, is the description's result type: a sum set to `.double` comes
    /// back as a `Double`.
    @Test func expressionResultTypeConvertsLikeResultType() throws {
        let fixture = try Self.saved(6, in: .inMemory)
        var total = Aggregates.total
        #expect(total.expressionResultType == .integer64)
        total.expressionResultType = .double
        #expect(total.resultType == .double)
        let request = FetchRequest(entityName: "Session")
        request.resultType = .dictionary
        request.propertiesToFetch = [total]
        let rows = try fixture.context().fetchDictionaries(request)
        let expected = SessionRow.make(6).reduce(0) { $0 + $1.duration }
        #expect(rows.count == 1 && rows[0]["total"] as? Double == Double(expected))
    }
}
