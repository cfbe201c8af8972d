import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// What a child context reads besides objects: dictionary fetches (plain and grouped), `fetchRecords` and
/// prefetching see its parent's unsaved state, as its object fetches do.
@Suite("Nested contexts: dictionaries, records and prefetching")
struct NestedContextReadingTests {
    /// Sessions "a" (30 min) and "b" (30 min) saved in room "R1", then a parent that changes "a" to 50 min and
    /// title "Z", deletes "b" and inserts "c" (title "C", 20 min) without saving.
    private static func parentWithChanges(_ kind: StoreKind) throws -> (Fixture, ManagedObjectContext) {
        let fixture = try Fixture.twoSessionsInOneRoom(kind)
        let parent = fixture.context()
        let sessions = try parent.all("Session", sortedBy: "guid")
        sessions[0].setValue("Z", forKey: "title")
        sessions[0].setValue(50, forKey: "duration")
        parent.delete(sessions[1])
        let c = parent.makeSession("c", title: "C")
        c.setValue(20, forKey: "duration")
        let firstRoom: ManagedObject = try #require(try parent.all("Room").first)
        c.setValue(firstRoom, forKey: "room")
        return (fixture, parent)
    }

    @Test(arguments: StoreKind.all)
    func dictionaryFetchesInAChildSeeTheParentsUnsavedChanges(kind: StoreKind) throws {
        let (_, parent) = try Self.parentWithChanges(kind)
        let child = ManagedObjectContext(parent: parent)
        let plain = FetchRequest(entityName: "Session")
        plain.resultType = .dictionary
        plain.propertiesToFetch = ["guid", "title"]
        plain.sortKeys = [SortKey("guid")]
        let rows = try child.fetchDictionaries(plain)
        #expect(rows.map { $0["title"] as? String } == ["Z", "C"])

        let grouped = FetchRequest(entityName: "Session")
        grouped.resultType = .dictionary
        grouped.propertiesToFetch = [Aggregates.count, Aggregates.total]
        let totals = try child.fetchDictionaries(grouped)
        #expect(totals.first?["count"] as? Int == 2)
        #expect(totals.first?["total"] as? Int == 70)
        // Even when the child's own pending changes are not asked for, the parent's are the child's store.
        grouped.includesPendingChanges = false
        #expect(try child.fetchDictionaries(grouped).first?["total"] as? Int == 70)

        // The child's own changes go on top.
        try child.existingObject(with: try #require(parent.all("Session", sortedBy: "guid").first).objectID)
            .setValue(10, forKey: "duration")
        grouped.includesPendingChanges = true
        #expect(try child.fetchDictionaries(grouped).first?["total"] as? Int == 30)
        // A top context reading the stores sees none of it.
        let reader = ManagedObjectContext(coordinator: parent.persistentStoreCoordinator)
        #expect(try reader.fetchDictionaries(grouped).first?["total"] as? Int == 60)
    }

    @Test(arguments: StoreKind.all)
    func fetchRecordsInAChildReadsWhatItsParentHolds(kind: StoreKind) throws {
        let (_, parent) = try Self.parentWithChanges(kind)
        let middle = ManagedObjectContext(parent: parent)
        let child = ManagedObjectContext(parent: middle)
        // The middle's own change counts for its child, and not the child's own.
        let c = try #require(try middle.all("Session").first { $0.value(forKey: "guid") as? String == "c" })
        c.setValue("C-middle", forKey: "title")
        let z = try #require(try child.all("Session").first { $0.value(forKey: "guid") as? String == "a" })
        z.setValue("child only", forKey: "title")

        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        let records = try child.fetchRecords(request)
        #expect(records.map { $0["title"] as? String } == ["Z", "C-middle"])
        #expect(records.map { $0["duration"] as? Int } == [50, 20])
        #expect(records[1].objectID == c.objectID)
        #expect(records.allSatisfy { $0["room"] is ManagedObjectID })

        request.propertiesToFetch = ["title"]
        request.fetchLimit = 1
        let limited = try child.fetchRecords(request)
        #expect(limited.count == 1)
        #expect(limited[0].values.keys.sorted() == ["title"])
        // The stores still hold the saved state.
        let stored = try ManagedObjectContext(coordinator: parent.persistentStoreCoordinator).fetchRecords(request)
        #expect(stored.map { $0["title"] as? String } == ["A"])
    }

    @Test(arguments: StoreKind.all)
    func prefetchingInAChildLoadsTheParentsDestinations(kind: StoreKind) throws {
        let (_, parent) = try Self.parentWithChanges(kind)
        let room = try #require(try parent.all("Room").first)
        room.setValue("R1-renamed", forKey: "name")
        let child = ManagedObjectContext(parent: parent)
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        request.relationshipKeyPathsForPrefetching = ["room"]
        let sessions = try child.fetch(request)
        #expect(sessions.count == 2)
        let childRoom = try #require(child.registeredObject(for: room.objectID))
        // Prefetched: loaded already, with the parent's unsaved name.
        #expect(!childRoom.isFault)
        #expect(childRoom.value(forKey: "name") as? String == "R1-renamed")
        #expect(sessions.allSatisfy { ($0.value(forKey: "room") as? ManagedObject) === childRoom })

        request.relationshipKeyPathsForPrefetching = ["nonsense"]
        #expect(throws: StoreError.self) { try child.fetch(request) }
    }
}
