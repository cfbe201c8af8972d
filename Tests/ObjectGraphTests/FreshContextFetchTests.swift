import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// A fetch into a context that holds no objects registers its results without looking each one up first: the
/// objects must still be one per ID, also when filling a result makes objects of others (its relationships) before
/// the fetch reaches them.
@Suite("Fetching into an empty context")
struct FreshContextFetchTests {
    /// People in a chain of managers: person i reports to person i + 1 (the last to nobody).
    private static func model() -> ManagedObjectModel {
        let person = EntityDescription(
            name: "Person",
            properties: [
                AttributeDescription(name: "rank", type: .integer64),
                RelationshipDescription(name: "manager", destination: "Person", inverse: "reports"),
                RelationshipDescription(name: "reports", destination: "Person", inverse: "manager", toMany: true),
            ])
        return ManagedObjectModel(entities: [person])
    }

    @Test(arguments: StoreKind.all)
    func eachIDIsOneObjectWhenResultsFillEachOther(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: kind.type, at: kind.url("people", in: folder))
        let setup = ManagedObjectContext(coordinator: coordinator)
        let count = 300
        let people = (0..<count).map { rank in
            let person = setup.insertNewObject(forEntityName: "Person")
            person.setValue(rank, forKey: "rank")
            return person
        }
        for rank in 0..<(count - 1) { people[rank].setValue(people[rank + 1], forKey: "manager") }
        try setup.save()

        for asFaults in [false, true] {
            let context = ManagedObjectContext(coordinator: coordinator)
            let request = FetchRequest(entityName: "Person")
            // Reports before their managers: filling person i (loaded objects) makes person i + 1's object first.
            request.sortKeys = [SortKey("rank")]
            request.returnsObjectsAsFaults = asFaults
            let fetched = try context.fetch(request)
            #expect(fetched.map { $0.value(forKey: "rank") as? Int } == Array(0..<count).map { $0 }, "\(kind)")
            #expect(context.registeredObjects.count == count, "\(kind), faults: \(asFaults)")
            for (rank, person) in fetched.enumerated() {
                #expect(context.object(with: person.objectID) === person)
                let manager = person.value(forKey: "manager") as? ManagedObject
                #expect(rank == count - 1 ? manager == nil : manager === fetched[rank + 1], "\(kind) \(rank)")
            }
            #expect(context.registeredObjects.count == count)
            // A second fetch into the context (no longer empty) finds the same objects.
            let again = try context.fetch(request)
            #expect(zip(again, fetched).allSatisfy { $0 === $1 } && again.count == count)
            #expect(context.registeredObjects.count == count)
        }
    }
}
