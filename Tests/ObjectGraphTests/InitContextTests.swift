import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Core Data's `init(context:)` on classes written by hand: the entity is found by class; a class that no entity,
/// or several, claim is a programmer error, as in Core Data.
@Suite("init(context:)")
struct InitContextTests {
    /// TestModel's Run entity names the class `TestRun`, registered as `Run`.
    @Test func aRegisteredClassFindsItsEntity() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let run = Run(context: context)
        #expect(run.entity.name == "Run" && run.isInserted)
        // The model's default applies and awakeFromInsert runs, as for insertNewObject(forEntityName:).
        #expect(run.processID == -1 && run.date != nil)
    }

    @Test func theBaseClassIsClaimedBySeveralEntitiesAndStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let fixture = Fixture()
            try fixture.addStore()
            _ = ManagedObject(context: fixture.context())
        }
        let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(
            message.contains("Conference, Favorite, Note, Person, Room, Session, Track all have class ManagedObject"))
    }
}
