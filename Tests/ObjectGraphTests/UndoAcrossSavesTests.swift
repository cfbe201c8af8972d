import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Undo as in Core Data: a save leaves the undo stack alone (what was saved can be undone, and the undo is a new
/// unsaved change), `rollback()` and `reset()` empty it, `undoLevels` bounds it, and groups carry action names.
@Suite("Undo across saves")
struct UndoAcrossSavesTests {
    private static func guids(_ fixture: Fixture) throws -> [String] {
        try fixture.context().all("Session", sortedBy: "guid").compactMap { $0.value(forKey: "guid") as? String }
    }

    @Test(arguments: StoreKind.all)
    func aSavedChangeOfAValueCanBeUndoneAndRedone(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a", title: "Old")
        try context.save()
        session.setValue("New", forKey: "title")
        try context.save()
        #expect(context.canUndo)

        context.undo()
        #expect(session.value(forKey: "title") as? String == "Old")
        #expect(session.isUpdated)
        try context.save()
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "Old")

        context.redo()
        try context.save()
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "New")
    }

    /// An undone group is redone as it was undone, and undone again: each undo or redo records what it replaced.
    /// Two changes of one value in a group come back in order; a value set without undo registration
    /// (`setPrimitiveValue`) after the group is what redo puts back, since undo recorded the value it replaced,
    /// as Core Data's undo manager registers the inverse of each undo.
    @Test func undoAndRedoSwapValuesBackAndForth() throws {
        let fixture = Fixture(.inMemory)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a", title: "A")
        try context.save()
        context.processPendingChanges()
        session.setValue("B", forKey: "title")
        session.setValue("C", forKey: "title")
        session.setValue(90, forKey: "duration")
        context.processPendingChanges()
        func state() -> [String] {
            [session.value(forKey: "title") as? String ?? "-", "\(session.value(forKey: "duration") ?? "-")"]
        }
        #expect(state() == ["C", "90"])
        for _ in 0..<2 {
            context.undo()
            #expect(state() == ["A", "30"])
            #expect(!context.hasChanges)
            context.redo()
            #expect(state() == ["C", "90"])
            #expect(context.hasChanges)
        }
        session.setPrimitiveValue("D", forKey: "title")
        context.undo()
        #expect(state() == ["A", "30"])
        context.redo()
        #expect(state() == ["D", "90"])
    }

    @Test(arguments: StoreKind.all)
    func undoingASavedInsertionDeletesTheObjectAndUndoingASavedDeletionInsertsIt(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        try context.save()
        let id = session.objectID

        context.undo()  // the insertion
        #expect(session.isDeleted)
        #expect(context.deletedObjects == [session])
        try context.save()
        #expect(try Self.guids(fixture).isEmpty)

        context.redo()  // inserted again, under its ID
        #expect(session.isInserted)
        try context.save()
        #expect(try Self.guids(fixture) == ["a"])
        #expect(session.objectID == id)

        context.delete(session)
        try context.save()
        #expect(try Self.guids(fixture).isEmpty)
        context.undo()  // the deletion
        #expect(session.isInserted)
        #expect(session.value(forKey: "guid") as? String == "a")
        try context.save()
        #expect(try Self.guids(fixture) == ["a"])
    }

    @Test func rollbackAndResetEmptyTheStackAndUndoWithNothingChangesNothing() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        context.makeSession("a")
        try context.save()
        #expect(context.canUndo)
        context.rollback()
        #expect(!context.canUndo)
        context.undo()
        #expect(!context.hasChanges)
        #expect(try Self.guids(fixture) == ["a"])

        context.makeSession("b")
        try context.save()
        context.reset()
        #expect(!context.canUndo && !context.canRedo)
        context.undo()
        #expect(!context.hasChanges)
        #expect(try Self.guids(fixture) == ["a", "b"])
    }

    @Test func undoLevelsBoundTheStack() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        context.undoLevels = 2
        let session = context.makeSession("a", title: "0")
        context.processPendingChanges()
        for title in ["1", "2", "3"] {
            session.setValue(title, forKey: "title")
            context.processPendingChanges()
        }
        context.undo()
        context.undo()
        #expect(session.value(forKey: "title") as? String == "1")
        #expect(!context.canUndo)
        context.undo()  // nothing left: the value stays
        #expect(session.value(forKey: "title") as? String == "1")

        // Lowering the bound drops the oldest groups at once.
        context.undoLevels = 0
        for title in ["4", "5", "6"] {
            session.setValue(title, forKey: "title")
            context.processPendingChanges()
        }
        context.undoLevels = 1
        context.undo()
        #expect(session.value(forKey: "title") as? String == "5")
        #expect(!context.canUndo)
    }

    @Test func groupsCarryActionNames() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        context.setActionName("Add Session")
        context.processPendingChanges()
        session.setValue("Renamed", forKey: "title")
        context.setActionName("Rename")
        #expect(context.undoActionName == "Rename")
        try context.save()
        #expect(context.undoActionName == "Rename")
        context.undo()
        #expect(context.undoActionName == "Add Session")
        #expect(context.redoActionName == "Rename")
        context.undo()
        #expect(context.undoActionName == "")
        #expect(context.redoActionName == "Add Session")
        // Naming after the group closed names the last group.
        context.redo()
        context.setActionName("Insert")
        #expect(context.undoActionName == "Insert")
    }

    /// A child context's undo survives its saves too; an undone insertion becomes a deletion pushed to the parent.
    @Test func undoInAChildAfterItsSaveDeletesFromTheParent() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        let note = child.insertNewObject(forEntityName: "Note")
        try child.save()
        #expect(parent.insertedObjects.count == 1)
        child.undo()
        #expect(note.isDeleted)
        try child.save()
        #expect(parent.insertedObjects.isEmpty)
        try parent.save()
        #expect(try fixture.context().all("Note").isEmpty)
    }

    /// A saved session and a saved room "Hall", then one undo group that puts the session in the room and makes
    /// `change` to the room.
    private func sessionMovedIntoASavedRoom(_ kind: StoreKind, change: (ManagedObject) -> Void) throws
        -> (Fixture, ManagedObjectContext, session: ManagedObject, room: ManagedObject)
    {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a", title: "Old")
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Hall", forKey: "name")
        try context.save()
        context.processPendingChanges()
        session.setValue(room, forKey: "room")
        change(room)
        context.processPendingChanges()
        return (fixture, context, session, room)
    }

    /// Undoing changes of an object that `refresh(_:mergeChanges: false)` turned back into a fault loads its saved
    /// values first: the list change is undone against them (it crashed: the fault's lists were not there), and
    /// the undone value is not overwritten when the fault fires later. Redo puts back what undo replaced (the
    /// saved name, since the refresh discarded the change), as Core Data's undo manager registers the inverse.
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func undoReachesAnObjectRefreshedIntoAFault(kind: StoreKind) throws {
        let (fixture, context, session, room) = try sessionMovedIntoASavedRoom(kind) { room in
            room.setValue("Aula", forKey: "name")
        }
        #expect(room.objects(forKey: "sessions") == [session])

        context.refresh(room, mergeChanges: false)
        #expect(room.isFault)
        context.undo()
        #expect(!room.isFault)
        #expect(room.value(forKey: "name") as? String == "Hall")
        #expect(room.objects(forKey: "sessions").isEmpty)
        #expect(session.value(forKey: "room") == nil)
        context.redo()
        #expect(room.value(forKey: "name") as? String == "Hall")
        #expect(session.value(forKey: "room") as? ManagedObject === room)
        #expect(room.objects(forKey: "sessions") == [session])
        try context.save()
        let reader = fixture.context()
        let saved = try reader.all("Room")
        #expect(saved.map { $0.value(forKey: "name") as? String } == ["Hall"])
        #expect(saved.first?.objects(forKey: "sessions").map { $0.value(forKey: "guid") as? String } == ["a"])
    }

    /// When the refreshed object is gone from the store by the time of the undo, it cannot load: its list change
    /// is left alone (no crash), the other object's change is undone, and the save that follows brings back
    /// neither the deleted object nor the relationship.
    @Test func undoOfAnObjectDeletedFromTheStoreSinceLeavesItsListAlone() throws {
        let (fixture, context, session, room) = try sessionMovedIntoASavedRoom(.sqlite) { _ in }
        context.refresh(room, mergeChanges: false)
        let other = fixture.context()
        other.delete(try other.existingObject(with: room.objectID))
        try other.save()

        context.undo()
        #expect(room.isInvalid)
        #expect(session.value(forKey: "room") == nil)
        try context.save()
        let reader = fixture.context()
        #expect(try reader.all("Room").isEmpty)
        #expect(try reader.all("Session").map { $0.value(forKey: "title") as? String } == ["Old"])
    }
}
