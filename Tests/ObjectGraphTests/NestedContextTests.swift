import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Child contexts (`ManagedObjectContext(parent:)`), checked against Core Data's documented behaviour: a child's
/// save pushes into its parent and touches no store, a child reads its parent's unsaved state, new objects get
/// permanent IDs when the top context saves, and validation, delete rules and events work at each level.
@Suite("Nested contexts")
struct NestedContextTests {
    /// A fixture with sessions "a" and "b" saved (titles "A" and "B"), in room "R1".
    private static func savedFixture(_ kind: StoreKind = .inMemory) throws -> Fixture {
        try Fixture.twoSessionsInOneRoom(kind)
    }

    private static func titles(_ context: ManagedObjectContext) throws -> [String] {
        try context.all("Session", sortedBy: "guid").compactMap { $0.value(forKey: "title") as? String }
    }

    @Test(arguments: StoreKind.all)
    func childSavePushesIntoTheParentAndTheParentSaveWritesTheStore(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        #expect(child.parent === parent)
        #expect(parent.parent == nil)
        #expect(child.persistentStoreCoordinator === parent.persistentStoreCoordinator)

        let a = try #require(try child.all("Session", sortedBy: "guid").first)
        a.setValue("A2", forKey: "title")
        let new = child.makeSession("c", title: "C")
        let room = try #require(try child.all("Room").first)
        new.setValue(room, forKey: "room")
        try child.save()

        #expect(!child.hasChanges)
        #expect(!new.isInserted)
        #expect(new.objectID.isTemporaryID)
        #expect(parent.hasChanges)
        #expect(parent.insertedObjects.map(\.objectID) == [new.objectID])
        #expect(parent.updatedObjects.map(\.objectID).contains(a.objectID))
        #expect(try Self.titles(parent) == ["A2", "B", "C"])
        // No store was written.
        #expect(try Self.titles(fixture.context()) == ["A", "B"])

        try parent.save()
        #expect(try Self.titles(fixture.context()) == ["A2", "B", "C"])
        // The child's object has the permanent ID the parent's save gave it, and its relationship was saved.
        #expect(!new.objectID.isTemporaryID)
        #expect(child.registeredObject(for: new.objectID) === new)
        let reader = fixture.context()
        let saved = try reader.existingObject(with: new.objectID)
        #expect((saved.value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String == "R1")
        let savedRoom = try #require(try reader.all("Room").first)
        #expect(savedRoom.objects(forKey: "sessions").count == 3)
    }

    @Test func childFetchesSeeTheParentsUnsavedChanges() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let sessions = try parent.all("Session", sortedBy: "guid")
        sessions[0].setValue("Z", forKey: "title")
        parent.delete(sessions[1])
        parent.makeSession("c", title: "C")

        let child = ManagedObjectContext(parent: parent)
        #expect(try Self.titles(child) == ["Z", "C"])
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "title == 'Z' OR title == 'B'")
        #expect(try child.fetch(request).map(\.objectID) == [sessions[0].objectID])
        #expect(try child.count(for: request) == 1)

        // The child's own changes go on top, with sorting, offset and limit applied last.
        child.makeSession("d", title: "D")
        let sorted = FetchRequest(entityName: "Session")
        sorted.sortKeys = [SortKey("title", ascending: false)]
        sorted.fetchLimit = 2
        #expect(try child.fetch(sorted).compactMap { $0.value(forKey: "title") as? String } == ["Z", "D"])
        sorted.fetchOffset = 1
        #expect(try child.count(for: sorted) == 2)
        // A relationship of a parent's new object resolves in the child.
        let room = try #require(try parent.all("Room").first)
        let e = parent.makeSession("e", title: "E")
        e.setValue(room, forKey: "room")
        let childE = try child.existingObject(with: e.objectID)
        #expect((childE.value(forKey: "room") as? ManagedObject)?.objectID == room.objectID)
    }

    @Test(arguments: StoreKind.all)
    func threeLevelsDeepSaveOneLevelAtATime(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let top = fixture.context()
        let middle = ManagedObjectContext(parent: top)
        let bottom = ManagedObjectContext(parent: middle)
        let note = bottom.insertNewObject(forEntityName: "Note")
        note.setValue("deep", forKey: "text")
        try bottom.all("Session", sortedBy: "guid")[1].setValue("B3", forKey: "title")
        try bottom.save()
        #expect(top.insertedObjects.isEmpty)
        #expect(middle.insertedObjects.count == 1)
        #expect(try top.all("Note").isEmpty)
        #expect(try middle.all("Note").count == 1)
        try middle.save()
        #expect(top.insertedObjects.count == 1)
        #expect(try Self.titles(top) == ["A", "B3"])
        #expect(try fixture.context().all("Note").isEmpty)
        try top.save()
        #expect(try fixture.context().all("Note").compactMap { $0.value(forKey: "text") as? String } == ["deep"])
        #expect(try Self.titles(fixture.context()) == ["A", "B3"])
        let middleNote = try #require(middle.registeredObject(for: note.objectID))
        #expect(!note.objectID.isTemporaryID)
        #expect(!middleNote.objectID.isTemporaryID)
    }

    @Test func obtainPermanentIDsInAChildKeepsTheIDThroughTheSaves() throws {
        let fixture = try Self.savedFixture(.sqlite)
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        let note = child.insertNewObject(forEntityName: "Note")
        try child.obtainPermanentIDs(for: [note])
        let id = note.objectID
        #expect(!id.isTemporaryID)
        try child.save()
        #expect(parent.insertedObjects.map(\.objectID) == [id])
        try parent.save()
        #expect(try fixture.context().existingObject(with: id).entity.name == "Note")
    }

    @Test func discardingAChildDiscardsItsChanges() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        do {
            let child = ManagedObjectContext(parent: parent)
            try child.all("Session")[0].setValue("Lost", forKey: "title")
            child.makeSession("lost")
        }
        #expect(!parent.hasChanges)
        #expect(try Self.titles(parent) == ["A", "B"])

        let child = ManagedObjectContext(parent: parent)
        let a = try child.all("Session", sortedBy: "guid")[0]
        a.setValue("Rolled back", forKey: "title")
        child.rollback()
        try child.save()
        #expect(a.value(forKey: "title") as? String == "A")
        #expect(!parent.hasChanges)
    }

    /// Validation failures of a child's save come all at once, and neither context changes.
    @Test func childSaveReportsAllValidationErrorsAndChangesNothing() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        let bad = child.insertNewObject(forEntityName: "Session")  // no guid, no title
        bad.setValue("x", forKey: "code")  // does not match the pattern
        let error = try #require(throws: ValidationError.self) { try child.save() }
        #expect(error.code == .multipleErrors)
        #expect(error.allErrors.count == 3)
        #expect(!parent.hasChanges)
        #expect(bad.isInserted)
        #expect(child.hasChanges)
    }

    @Test(arguments: StoreKind.all)
    func deleteRulesApplyAtEachLevel(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        let conference = setup.insertNewObject(forEntityName: "Conference")
        conference.setValue("C1", forKey: "acronym")
        let track = setup.insertNewObject(forEntityName: "Track")
        for guid in ["a", "b"] {
            let session = setup.makeSession(guid)
            session.setValue(conference, forKey: "conference")
            session.setValue(track, forKey: "track")
        }
        try setup.save()

        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        // Deny: the track still has sessions, so the child's save fails and nothing reaches the parent.
        child.delete(try #require(try child.all("Track").first))
        let denied = try #require(throws: ValidationError.self) { try child.save() }
        #expect(denied.code == .relationshipDeniedDelete)
        #expect(!parent.hasChanges)
        child.rollback()

        // Cascade: deleting the conference deletes its sessions in the child, then in the parent.
        child.delete(try #require(try child.all("Conference").first))
        #expect(child.deletedObjects.count == 3)
        try child.save()
        #expect(parent.deletedObjects.count == 3)
        #expect(try parent.all("Session").isEmpty)
        // The parent's nullify rule detached the sessions from the track the child never loaded them from.
        let parentTrack = try #require(try parent.all("Track").first)
        #expect(parentTrack.objects(forKey: "sessions").isEmpty)
        try parent.save()
        #expect(try fixture.context().all("Session").isEmpty)
        #expect(try fixture.context().all("Track").count == 1)
    }

    /// An object the parent deleted after the child read it cannot take the child's changes: the save fails with
    /// `objectNotFound`, and neither context changes.
    @Test func pushingIntoAnObjectTheParentDeletedFailsAndChangesNothing() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        let childA = try child.all("Session", sortedBy: "guid")[0]
        parent.delete(try parent.existingObject(with: childA.objectID))
        childA.setValue("Changed", forKey: "title")
        let added = child.makeSession("c")
        let error = try #require(throws: StoreError.self) { try child.save() }
        #expect(error.code == .objectNotFound)
        #expect(error.context.objectID == childA.objectID)
        #expect(parent.insertedObjects.isEmpty)
        #expect(parent.deletedObjects.count == 1)
        #expect(childA.isUpdated)
        #expect(added.isInserted)
    }

    @Test func eventsAreSentAtEachLevel() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        var parentChanges: [ObjectsDidChange] = []
        var childSaves: [ContextDidSave] = []
        parent.addObserver { event in if case .objectsDidChange(let change) = event { parentChanges.append(change) } }
        child.addObserver { event in if case .didSave(let saved) = event { childSaves.append(saved) } }
        let a = try child.all("Session", sortedBy: "guid")[0]
        a.setValue("A2", forKey: "title")
        let new = child.makeSession("c")
        try child.save()
        #expect(childSaves.count == 1)
        #expect(childSaves.first?.insertedObjectIDs == [new.objectID])
        #expect(childSaves.first?.updatedObjectIDs == [a.objectID])
        let change = try #require(parentChanges.last)
        #expect(change.inserted.map(\.objectID) == [new.objectID])
        #expect(change.updated.map(\.objectID).contains(a.objectID))

        // The push is one undoable group of the parent.
        parent.undo()
        #expect(!parent.hasChanges)
        #expect(try Self.titles(parent) == ["A", "B"])
    }
}
