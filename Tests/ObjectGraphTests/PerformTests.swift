import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Core Data's `perform`/`performAndWait` blocks, ported unchanged: they run in the caller's isolation domain (an
/// ObjectGraph context is confined by the compiler, not by a queue), return the block's value and pass its errors on.
@Suite("perform and performAndWait")
struct PerformTests {
    private struct Refused: Error, Equatable {}

    @Test func performAndWaitRunsAtOnceAndReturnsTheBlocksValue() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        var order: [String] = []
        let title = context.performAndWait {
            order.append("block")
            let session = context.makeSession("a", title: "Keynote")
            return session.value(forKey: "title") as? String
        }
        order.append("after")
        #expect(title == "Keynote")
        #expect(order == ["block", "after"])
        try context.performAndWait { try context.save() }
        #expect(try fixture.context().all("Session").count == 1)
    }

    @Test func aThrowingBlockChangesNothingItDidNotDo() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        // A session without a title fails validation: the save inside the block throws, and nothing is written.
        context.makeSession("a").setValue(nil, forKey: "title")
        #expect(throws: ValidationError.self) { try context.performAndWait { try context.save() } }
        #expect(throws: Refused.self) { try context.performAndWait { () throws -> Int in throw Refused() } }
        #expect(context.hasChanges)
        #expect(try fixture.context().all("Session").isEmpty)
    }

    @Test func asyncPerformRunsInTheCallersDomainAtOnceOrEnqueued() async throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let count = try await context.perform {
            context.makeSession("a", title: "A")
            try context.save()
            return try context.count(for: FetchRequest(entityName: "Session"))
        }
        #expect(count == 1)
        let enqueued = try await context.perform(schedule: .enqueued) {
            try context.all("Session").map { $0.value(forKey: "guid") as? String }
        }
        #expect(enqueued == ["a"])
        await #expect(throws: Refused.self) {
            try await context.perform { () throws -> Int in throw Refused() }
        }
    }

    @Test func theBlockFormOfPerformRunsBeforeItReturns() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        var ran = false
        context.perform {
            context.makeSession("a", title: "A")
            ran = true
        }
        #expect(ran)
        #expect(context.insertedObjects.count == 1)
    }
}

/// Core Data's `mergeChanges(fromRemoteContextSave:into:)`.
@Suite("Merging remote changes")
struct RemoteMergeTests {
    /// Core Data's idiom after a batch delete: the deleted IDs are merged into the contexts that hold the objects.
    @Test(arguments: StoreKind.all)
    func aBatchDeletesIDsMergedAsARemoteSaveReachEveryContext(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        for guid in ["a", "b", "c"] { setup.makeSession(guid) }
        try setup.save()
        let first = fixture.context()
        let second = fixture.context()
        let held = try first.all("Session", sortedBy: "guid")
        _ = try second.all("Session")
        let fetch = FetchRequest(entityName: "Session")
        fetch.predicate = try ObjectPredicate(format: "guid != 'b'")
        let delete = BatchDeleteRequest(fetchRequest: fetch)
        delete.resultType = .objectIDs
        let result = try fixture.context().execute(delete)
        let deleted = try #require(result.objectIDs)
        #expect(deleted.count == 2)

        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: ContextDidSave(deletedObjectIDs: Set(deleted)), into: [first, second])
        for context in [first, second] {
            #expect(deleted.allSatisfy { context.registeredObject(for: $0) == nil })
            #expect(try context.all("Session").map { $0.value(forKey: "guid") as? String } == ["b"])
        }
        #expect(held[0].isInvalid && !held[1].isInvalid)
    }
}
