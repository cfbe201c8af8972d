import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// A child's save hands the buffer of its snapshot of an object to the parent's object, which writes its values
/// there (`captureSnapshot(reusing:)`): the parent's object must end with its own values in every slot the child
/// did not change, its committed values as before the push, and a rollback that restores them, whatever the child
/// read earlier. The entity has no to-many relationship, so the reuse applies (objects with one take the old way).
@Suite("Nested contexts: the parent's values after a push")
struct NestedPushSnapshotTests {
    private final class Setup {
        let folder = TemporaryFolder()
        let coordinator: PersistentStoreCoordinator
        let slot: ManagedObjectID

        init() throws {
            let place = EntityDescription(
                name: "Place",
                properties: [
                    AttributeDescription(name: "name", type: .string)
                ])
            let item = EntityDescription(
                name: "Item",
                properties: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "weight", type: .double),
                    AttributeDescription(name: "count", type: .integer64),
                    AttributeDescription(name: "when", type: .date),
                    AttributeDescription(name: "flag", type: .boolean),
                    AttributeDescription(name: "blob", type: .binaryData),
                    RelationshipDescription(name: "place", destination: "Place"),
                ])
            coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [place, item]))
            try coordinator.addPersistentStore(type: .inMemory, at: folder.file("store.mem"))
            let context = ManagedObjectContext(coordinator: coordinator)
            let home = context.insertNewObject(forEntityName: "Place")
            home.setValue("Home", forKey: "name")
            let object = context.insertNewObject(forEntityName: "Item")
            object.setValue("Café", forKey: "title")
            object.setValue(0.0, forKey: "weight")
            object.setValue(7, forKey: "count")
            object.setValue(Date(timeIntervalSinceReferenceDate: 1_000), forKey: "when")
            object.setValue(true, forKey: "flag")
            object.setValue(Data([1, 2, 3]), forKey: "blob")
            object.setValue(home, forKey: "place")
            try context.save()
            slot = object.objectID
        }

        func context() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }
    }

    @Test func aPushChangesOnlyTheChildsSlotsAndKeepsTheParentsCommittedValues() throws {
        let setup = try Setup()
        let parent = setup.context()
        let child = ManagedObjectContext(parent: parent)
        let childItem = try child.existingObject(with: setup.slot)
        childItem.setValue(8, forKey: "count")
        try child.save()

        let item = try #require(parent.registeredObject(for: setup.slot))
        #expect(item.value(forKey: "count") as? Int == 8)
        #expect(item.value(forKey: "title") as? String == "Café")
        #expect(item.value(forKey: "blob") as? Data == Data([1, 2, 3]))
        // The related object is the parent's own, not the child's.
        let place = try #require(item.value(forKey: "place") as? ManagedObject)
        #expect(place.managedObjectContext === parent)
        #expect(place.value(forKey: "name") as? String == "Home")
        #expect(Set(item.changedValues().keys) == ["count"])
        #expect(item.committedValues(forKeys: ["count"])["count"] as? Int == 7)

        // The child's object keeps its own buffer: the parent's later writes do not reach it.
        item.setValue("Tea", forKey: "title")
        #expect(childItem.value(forKey: "title") as? String == "Café")
        parent.rollback()
        #expect(item.value(forKey: "count") as? Int == 7)
        #expect(item.value(forKey: "title") as? String == "Café")
        #expect(childItem.value(forKey: "count") as? Int == 8)
        #expect(!parent.hasChanges)
    }

    /// The parent changed and saved values after the child read the object: the child's snapshot holds the old
    /// ones, equal or not, and none of them may come back. `-0.0` equals `0.0` and a decomposed "é" equals a
    /// composed one, so only a comparison of the bits keeps the parent's representation.
    @Test func valuesTheParentSavedAfterTheChildReadThemStay() throws {
        let setup = try Setup()
        let parent = setup.context()
        let child = ManagedObjectContext(parent: parent)
        let childItem = try child.existingObject(with: setup.slot)
        #expect(childItem.value(forKey: "title") as? String == "Café")

        let item = try parent.existingObject(with: setup.slot)
        let decomposed = "Cafe\u{301}"
        item.setValue(decomposed, forKey: "title")
        item.setValue(-0.0, forKey: "weight")
        item.setValue(Date(timeIntervalSinceReferenceDate: 2_000), forKey: "when")
        item.setValue(false, forKey: "flag")
        try parent.save()

        childItem.setValue(9, forKey: "count")
        try child.save()
        #expect(item.value(forKey: "count") as? Int == 9)
        #expect(
            (item.value(forKey: "title") as? String).map { Array($0.unicodeScalars) }
                == Array(decomposed.unicodeScalars))
        #expect((item.value(forKey: "weight") as? Double)?.sign == .minus)
        #expect(item.value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 2_000))
        #expect(item.value(forKey: "flag") as? Bool == false)
        #expect(Set(item.changedValues().keys) == ["count"])
        let committed = item.committedValues(forKeys: nil)
        #expect((committed["weight"] as? Double)?.sign == .minus)
        #expect(committed["count"] as? Int == 7)

        try parent.save()
        let reader = setup.context()
        let saved = try reader.existingObject(with: setup.slot)
        #expect(saved.value(forKey: "count") as? Int == 9)
        #expect(
            (saved.value(forKey: "title") as? String).map { Array($0.unicodeScalars) }
                == Array(decomposed.unicodeScalars))
        #expect((saved.value(forKey: "weight") as? Double)?.sign == .minus)
    }

    /// Three levels: the middle context's snapshot buffer moves on to the top one in the same way.
    @Test func threeLevelsPushTheSameObject() throws {
        let setup = try Setup()
        let top = setup.context()
        let middle = ManagedObjectContext(parent: top)
        let bottom = ManagedObjectContext(parent: middle)
        try middle.existingObject(with: setup.slot).setValue("Middle", forKey: "title")
        try bottom.existingObject(with: setup.slot).setValue(1, forKey: "count")
        try bottom.save()
        try middle.save()
        let item = try #require(top.registeredObject(for: setup.slot))
        #expect(item.value(forKey: "title") as? String == "Middle")
        #expect(item.value(forKey: "count") as? Int == 1)
        #expect(Set(item.changedValues().keys) == ["title", "count"])
        #expect(item.committedValues(forKeys: ["title"])["title"] as? String == "Café")
        top.undo()
        #expect(item.value(forKey: "title") as? String == "Café")
        #expect(item.value(forKey: "count") as? Int == 7)
    }
}
