import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// `willSave()` as Core Data documents it: called on each inserted, updated and deleted object before the save,
/// and what it changes is saved too. A save finds its updated objects once and looks again only when something
/// changed after that, so these tests change objects from `willSave()` in every way that matters: a new value, a
/// change undone back to the committed value, a deletion, and the same in a child context's push.
@Suite("willSave")
struct WillSaveTests {
    /// A note that, in `willSave()`, trims its title, counts its edits, puts back a title "revert" and deletes the
    /// note titled "other" when its own title is "drop other".
    final class StampedNote: ManagedObject {
        override func willSave() {
            super.willSave()
            guard !isDeleted else { return }
            let title = value(forKey: "title") as? String
            if title == "revert" {
                setValue(committedValues(forKeys: ["title"])["title"] ?? nil, forKey: "title")
                return
            }
            if let title, title != title.trimmingCharacters(in: .whitespaces) {
                setValue(title.trimmingCharacters(in: .whitespaces), forKey: "title")
            }
            if isUpdated {
                setPrimitiveValue(((value(forKey: "edits") as? Int) ?? 0) + 1, forKey: "edits")
            }
            if title == "drop other", let context = managedObjectContext {
                let request = FetchRequest(entityName: "Note")
                request.predicate = try? ObjectPredicate(format: "title == 'other'")
                for other in (try? context.fetch(request)) ?? [] { context.delete(other) }
            }
        }
    }

    private struct Store {
        let folder = TemporaryFolder()
        let coordinator: PersistentStoreCoordinator

        init(_ kind: StoreKind) throws {
            let note = EntityDescription(
                name: "Note",
                properties: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "edits", type: .integer64, defaultValue: 0),
                ], managedObjectClassName: "WillSaveTests.StampedNote")
            ManagedObjectClassRegistry.register(StampedNote.self, forClassName: "WillSaveTests.StampedNote")
            coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [note]))
            try coordinator.addPersistentStore(type: kind.type, at: kind.url("notes", in: folder))
            let context = ManagedObjectContext(coordinator: coordinator)
            for title in ["first", "other", "third"] {
                context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
            }
            try context.save()
        }

        /// Every note as a fresh context reads it from the store: title and edits, by title.
        func saved() throws -> [String: Int] {
            let notes = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Note"))
            return Dictionary(
                uniqueKeysWithValues: notes.map {
                    ($0.value(forKey: "title") as? String ?? "", $0.value(forKey: "edits") as? Int ?? -1)
                })
        }

        func note(_ title: String, in context: ManagedObjectContext) throws -> ManagedObject {
            let request = FetchRequest(entityName: "Note")
            request.predicate = try ObjectPredicate(format: "title == %@", title)
            return try #require(try context.fetch(request).first)
        }

        /// Gives the note titled `old` the title `new` in `context`, and saves the context.
        func retitleAndSave(_ old: String, to new: String, in context: ManagedObjectContext) throws {
            try note(old, in: context).setValue(new, forKey: "title")
            try context.save()
        }
    }

    @Test(arguments: StoreKind.all)
    func valuesSetInWillSaveAreSavedWithTheChange(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = ManagedObjectContext(coordinator: store.coordinator)
        try store.retitleAndSave("first", to: "  renamed ", in: context)
        #expect(try store.saved() == ["renamed": 1, "other": 0, "third": 0])
        #expect(!context.hasChanges)
        // The next save of the same object counts again: the first save's changes were settled.
        try store.retitleAndSave("renamed", to: "renamed twice", in: context)
        #expect(try store.saved() == ["renamed twice": 2, "other": 0, "third": 0])
    }

    @Test(arguments: StoreKind.all)
    func aWillSaveThatPutsTheOnlyChangeBackSavesNothingForThatObject(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = ManagedObjectContext(coordinator: store.coordinator)
        let reverted = try store.note("first", in: context)
        reverted.setValue("revert", forKey: "title")
        try store.note("third", in: context).setValue("3rd", forKey: "title")
        #expect(context.updatedObjects.count == 2)
        try context.save()
        #expect(try store.saved() == ["first": 0, "other": 0, "3rd": 1])
        #expect(reverted.value(forKey: "title") as? String == "first")
        #expect(!reverted.isUpdated && !context.hasChanges)
    }

    @Test(arguments: StoreKind.all)
    func aDeletionMadeInWillSaveIsSaved(kind: StoreKind) throws {
        let store = try Store(kind)
        let context = ManagedObjectContext(coordinator: store.coordinator)
        try store.retitleAndSave("first", to: "drop other", in: context)
        #expect(try store.saved() == ["drop other": 1, "third": 0])
        #expect(context.deletedObjects.isEmpty && !context.hasChanges)
    }

    /// Slots past the 63rd share one bit of the object's written-slots mask: a change there is still found, and
    /// the slots before it that were not written are not reported.
    @Test func aChangeToTheSeventiethPropertyIsFoundAndSaved() throws {
        let entity = EntityDescription(
            name: "Wide",
            properties: (0..<70).map {
                AttributeDescription(name: "p\($0)", type: .integer64, defaultValue: 0)
            })
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [entity]))
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = context.insertNewObject(forEntityName: "Wide")
        try context.save()
        object.setValue(7, forKey: "p69")
        object.setValue(3, forKey: "p5")
        #expect(Set(object.changedValues().keys) == ["p5", "p69"])
        #expect(context.updatedObjects == [object])
        try context.save()
        let saved = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Wide"))
        #expect(saved.first?.value(forKey: "p69") as? Int == 7)
        #expect(saved.first?.value(forKey: "p5") as? Int == 3)
        object.setValue(0, forKey: "p69")
        object.setValue(0, forKey: "p69")
        object.setValue(7, forKey: "p69")
        #expect(!object.isUpdated && !context.hasChanges)
    }

    @Test func aChildPushesWhatItsWillSaveChanged() throws {
        let store = try Store(.inMemory)
        let parent = ManagedObjectContext(coordinator: store.coordinator)
        let child = ManagedObjectContext(parent: parent)
        try store.note("first", in: child).setValue(" spaced ", forKey: "title")
        try store.note("third", in: child).setValue("revert", forKey: "title")
        try child.save()
        let pushed = try #require(parent.updatedObjects.first)
        #expect(parent.updatedObjects.count == 1)
        #expect(pushed.value(forKey: "title") as? String == "spaced")
        #expect(pushed.value(forKey: "edits") as? Int == 1)
        // Nothing reached the store before the parent's save; the parent's own willSave counts the edit again.
        #expect(try store.saved() == ["first": 0, "other": 0, "third": 0])
        try parent.save()
        #expect(try store.saved() == ["spaced": 2, "other": 0, "third": 0])
    }
}
