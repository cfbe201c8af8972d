import Foundation
import Testing

@testable import ObjectGraph

/// A context remembers the class of the last entity it inserted or faulted by name; registering a class since must
/// still take effect.
@Suite("Managed object class registry")
struct ClassRegistryTests {
    final class LateGadget: ManagedObject {}

    @Test func aClassRegisteredAfterInsertsAndFetchesIsUsedFromThenOn() throws {
        let className = "ClassRegistryTests.LateGadget.\(UUID().uuidString)"
        let gadget = EntityDescription(name: "Gadget", properties: [AttributeDescription(name: "name", type: .string)],
                                       managedObjectClassName: className)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [gadget]))
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let before = context.insertNewObject(forEntityName: "Gadget")
        #expect(type(of: before) == ManagedObject.self)
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Gadget")).allSatisfy { type(of: $0) == ManagedObject.self })

        ManagedObjectClassRegistry.register(LateGadget.self, forClassName: className)
        let after = context.insertNewObject(forEntityName: "Gadget")
        #expect(after is LateGadget)
        try context.save()
        let laterReader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try laterReader.fetch(FetchRequest(entityName: "Gadget"))
        #expect(fetched.count == 2 && fetched.allSatisfy { $0 is LateGadget })
        // The reader made faults of Gadget before: the one it makes now has the new class.
        #expect(reader.object(with: after.objectID) is LateGadget)
    }
}
