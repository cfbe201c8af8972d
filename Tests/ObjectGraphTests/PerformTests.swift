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
