import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Core Data's `includesPropertyValues` and `shouldRefreshRefetchedObjects` on fetch requests.
@Suite("Fetching IDs only, refreshing refetched objects")
struct RefetchTests {
    /// Sessions "a" and "b" saved with titles "A" and "B"; another context then saves "A2" and "B2".
    private static func fixtureWithStaleObjects(_ kind: StoreKind) throws -> (
        Fixture, ManagedObjectContext, [ManagedObject]
    ) {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        setup.makeSession("a", title: "A")
        setup.makeSession("b", title: "B")
        try setup.save()
        let context = fixture.context()
        let loaded = try context.all("Session", sortedBy: "guid")
        #expect(loaded.map { $0.value(forKey: "title") as? String } == ["A", "B"])
        let other = fixture.context()
        for session in try other.all("Session") {
            session.setValue("\(session.value(forKey: "title") as? String ?? "")2", forKey: "title")
        }
        try other.save()
        return (fixture, context, loaded)
    }

    @Test(arguments: StoreKind.all)
    func aLoadedObjectKeepsItsValuesUnlessTheRequestRefreshesIt(kind: StoreKind) throws {
        let (fixture, context, loaded) = try Self.fixtureWithStaleObjects(kind)
        defer { withExtendedLifetime(fixture) {} }
        loaded[1].setValue(50, forKey: "duration")
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        // By default a fetch leaves loaded objects alone, as Core Data does.
        _ = try context.fetch(request)
        #expect(loaded.map { $0.value(forKey: "title") as? String } == ["A", "B"])

        var refreshed: Set<ManagedObject> = []
        let token = context.addObserver { event in
            if case .objectsDidChange(let change) = event { refreshed.formUnion(change.refreshed) }
        }
        defer { context.removeObserver(token) }
        request.shouldRefreshRefetchedObjects = true
        let fetched = try context.fetch(request)
        #expect(fetched.map(\.objectID) == loaded.map(\.objectID) && fetched[0] === loaded[0])
        #expect(loaded.map { $0.value(forKey: "title") as? String } == ["A2", "B2"])
        // The unsaved change stays on top of the new values, and the object can still be saved without a conflict.
        #expect(loaded[1].value(forKey: "duration") as? Int == 50)
        #expect(loaded[1].changedValues().keys.sorted() == ["duration"] && !loaded[0].hasChanges)
        context.processPendingChanges()
        #expect(refreshed == Set(loaded))
        try context.save()
    }

    @Test(arguments: StoreKind.all)
    func fetchingWithoutPropertyValuesReturnsFaultsThatLoadWhenRead(kind: StoreKind) throws {
        let (fixture, _, _) = try Self.fixtureWithStaleObjects(kind)
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        // By default the faults keep the values the fetch read; without property values they keep none.
        #expect(try context.fetch(request).allSatisfy { $0.isFault && $0.faultValues != nil })
        context.reset()
        request.includesPropertyValues = false
        let objects = try context.fetch(request)
        #expect(objects.count == 2 && objects.allSatisfy(\.isFault))
        #expect(objects.allSatisfy { $0.faultValues == nil })
        #expect(objects.map { $0.value(forKey: "title") as? String } == ["A2", "B2"])
        // Enough to delete them.
        for object in try context.fetch(request) { context.delete(object) }
        try context.save()
        #expect(try fixture.context().all("Session").isEmpty)
    }

    @Test func aChildRefreshesWhatItLoadedFromItsParent() throws {
        let fixture = Fixture(.inMemory)
        try fixture.addStore()
        let parent = fixture.context()
        parent.makeSession("a", title: "A")
        try parent.save()
        let child = ManagedObjectContext(parent: parent)
        let request = FetchRequest(entityName: "Session")
        let session = try #require(try child.fetch(request).first)
        try #require(try parent.fetch(request).first).setValue("A-parent", forKey: "title")
        _ = try child.fetch(request)
        #expect(session.value(forKey: "title") as? String == "A")
        request.shouldRefreshRefetchedObjects = true
        _ = try child.fetch(request)
        #expect(session.value(forKey: "title") as? String == "A-parent" && !session.hasChanges)
    }
}
