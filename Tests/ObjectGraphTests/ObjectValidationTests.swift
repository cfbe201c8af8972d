import Foundation
import Testing

@testable import ObjectGraph

/// Saving validates every property of a new object. Plain objects skip the full rules for values of their
/// attribute's canonical type; these tests pin down what must still be checked, and that subclasses keep their hook.
@Suite("Validation of new objects")
struct ObjectValidationTests {
    /// Counts the keys its `validateValue(_:forKey:)` override sees, and refuses "forbidden" titles.
    final class CheckedItem: ManagedObject {
        var validatedKeys: [String] = []

        override func validateValue(_ value: Any?, forKey key: String) throws {
            try super.validateValue(value, forKey: key)
            validatedKeys.append(key)
            if key == "title", value as? String == "forbidden" {
                throw ValidationError(code: .custom, message: "Item: this title is not allowed.")
            }
        }
    }

    private static func context(className: String? = nil) throws -> ManagedObjectContext {
        let item = EntityDescription(name: "Item", properties: [
            AttributeDescription(name: "count", type: .integer64, isOptional: false),
            AttributeDescription(name: "small", type: .integer16),
            AttributeDescription(name: "title", type: .string),
        ], managedObjectClassName: className ?? "ManagedObject")
        let model = ManagedObjectModel(entities: [item])
        if let className { ManagedObjectClassRegistry.register(CheckedItem.self, forClassName: className) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        return ManagedObjectContext(coordinator: coordinator)
    }

    @Test func aSubclassValidatesEveryPropertyThroughItsOverride() throws {
        let context = try Self.context(className: "ObjectValidationTests.CheckedItem")
        let item = try #require(context.insertNewObject(forEntityName: "Item") as? CheckedItem)
        item.setValue(3, forKey: "count")
        item.setValue("forbidden", forKey: "title")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.code == .custom)
        #expect(item.validatedKeys.sorted() == ["count", "small", "title"])
        #expect(context.insertedObjects == [item])
        let other = ManagedObjectContext(coordinator: context.persistentStoreCoordinator)
        #expect(try other.count(for: FetchRequest(entityName: "Item")) == 0)
        item.setValue("allowed", forKey: "title")
        try context.save()
        #expect(item.validatedKeys.sorted() == ["count", "count", "small", "small", "title", "title"])
        #expect(context.insertedObjects.isEmpty)
    }

    @Test func valuesOfAnotherTypeAndMissingValuesStillFail() throws {
        let context = try Self.context()
        let item = context.insertNewObject(forEntityName: "Item")
        // A value of the wrong type reaches a slot without setValue (as a custom store could put it there).
        item.slots[item.entity.layout.slot(forKey: "title")!] = 42
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(Set(error.allErrors.map(\.code)) == [.wrongType, .missingMandatoryProperty])
        #expect(context.insertedObjects == [item])

        // An integer16 out of its range is refused even though it is an Int.
        item.setValue("fine", forKey: "title")
        item.setValue(1, forKey: "count")
        item.slots[item.entity.layout.slot(forKey: "small")!] = 40_000
        #expect(throws: ValidationError.self) { try context.save() }
        item.setValue(7, forKey: "small")
        try context.save()
        #expect(context.insertedObjects.isEmpty && !item.objectID.isTemporaryID)
    }
}
