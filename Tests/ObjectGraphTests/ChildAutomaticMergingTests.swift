import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// `automaticallyMergesChangesFromParent` on child contexts, as Core Data documents it: a child with the flag
/// merges the changes saved into or by its parent (its parent's save, a sibling's save landing in the parent),
/// refreshing the objects it registered and keeping its own unsaved changes on top. A child without the flag keeps
/// what it read.
@Suite("Child contexts merging automatically")
struct ChildAutomaticMergingTests {
    /// A fixture with sessions "a" and "b" saved (titles "A" and "B"), both in room "R1".
    private static func savedFixture(_ kind: StoreKind = .inMemory) throws -> Fixture {
        try Fixture.twoSessionsInOneRoom(kind)
    }

    private static func session(_ guid: String, in context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.all("Session").first { $0.value(forKey: "guid") as? String == guid })
    }

    /// A parent with three children: an editor that saves, a viewer that merges automatically, a bystander that
    /// does not.
    private static func siblings(of fixture: Fixture) -> (
        parent: ManagedObjectContext, editor: ManagedObjectContext, viewer: ManagedObjectContext,
        bystander: ManagedObjectContext
    ) {
        let parent = fixture.context()
        let viewer = ManagedObjectContext(parent: parent)
        viewer.automaticallyMergesChangesFromParent = true
        return (parent, ManagedObjectContext(parent: parent), viewer, ManagedObjectContext(parent: parent))
    }

    @Test(arguments: StoreKind.all)
    func aChildMergesItsParentsSaveToTheStores(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        let other = ManagedObjectContext(parent: parent)
        #expect(child.automaticallyMergesChangesFromParent)
        #expect(!other.automaticallyMergesChangesFromParent)
        let childA = try Self.session("a", in: child)
        let otherA = try Self.session("a", in: other)
        let childB = try Self.session("b", in: child)

        let parentA = try Self.session("a", in: parent)
        parentA.setValue("A2", forKey: "title")
        parent.delete(try Self.session("b", in: parent))
        // Unsaved changes of the parent are not merged: nothing was saved yet.
        parent.processPendingChanges()
        #expect(childA.value(forKey: "title") as? String == "A")
        try parent.save()

        #expect(childA.value(forKey: "title") as? String == "A2")
        #expect(!childA.hasChanges)
        #expect(child.registeredObject(for: childB.objectID) == nil)
        #expect(try child.all("Session").map(\.objectID) == [childA.objectID])
        // A child without the flag keeps what it read.
        #expect(otherA.value(forKey: "title") as? String == "A")
    }

    @Test func theChildsOwnUnsavedChangesStayOnTopOfTheMergedValues() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        let childA = try Self.session("a", in: child)
        childA.setValue(45, forKey: "duration")

        let parentA = try Self.session("a", in: parent)
        parentA.setValue("A2", forKey: "title")
        parentA.setValue(60, forKey: "duration")
        try parent.save()

        // The parent's change to another property arrives; the child's change to the same property wins.
        #expect(childA.value(forKey: "title") as? String == "A2")
        #expect(childA.value(forKey: "duration") as? Int == 45)
        #expect(childA.hasChanges)
        #expect(childA.changedValues().keys.sorted() == ["duration"])
        #expect(childA.committedValues(forKeys: ["duration", "title"])["title"] as? String == "A2")
        try child.save()
        try parent.save()
        let saved = try Self.session("a", in: fixture.context())
        #expect(saved.value(forKey: "title") as? String == "A2")
        #expect(saved.value(forKey: "duration") as? Int == 45)
    }

    @Test(arguments: StoreKind.all)
    func aSiblingsSaveIntoTheParentReachesAChildThatMerges(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let (_, editor, viewer, bystander) = Self.siblings(of: fixture)
        let viewerA = try Self.session("a", in: viewer)
        let viewerB = try Self.session("b", in: viewer)
        let bystanderA = try Self.session("a", in: bystander)
        let room = try #require(try viewer.all("Room").first)
        #expect(room.objects(forKey: "sessions").count == 2)

        try Self.session("a", in: editor).setValue("A-edited", forKey: "title")
        editor.delete(try Self.session("b", in: editor))
        try editor.save()

        #expect(viewerA.value(forKey: "title") as? String == "A-edited")
        #expect(viewer.registeredObject(for: viewerB.objectID) == nil)
        // The room lost session "b" in the parent through the delete rule, and the viewer sees it.
        #expect(room.objects(forKey: "sessions").map(\.objectID) == [viewerA.objectID])
        #expect(bystanderA.value(forKey: "title") as? String == "A")
        // No store was written, and the merge changed nothing in the viewer that it would save.
        #expect(!viewer.hasChanges)
        #expect(try fixture.context().all("Session").count == 2)
    }

    /// A sibling deletes the room: the parent's nullify rule clears the sessions' `room`, which the sibling never
    /// touched. A child that merges sees those sessions without a room, not a room that no longer exists.
    @Test(arguments: StoreKind.all)
    func relationshipsTheParentsDeleteRulesNullifyReachAChildThatMerges(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let (parent, editor, viewer, bystander) = Self.siblings(of: fixture)
        let viewerA = try Self.session("a", in: viewer)
        let viewerB = try Self.session("b", in: viewer)
        let bystanderA = try Self.session("a", in: bystander)
        let viewerRoom = try #require(viewerA.value(forKey: "room") as? ManagedObject)
        #expect(bystanderA.value(forKey: "room") != nil)
        var heard: [ObjectsDidChange] = []
        let token = viewer.addObserver { event in
            if case .objectsDidChange(let change) = event { heard.append(change) }
        }
        defer { viewer.removeObserver(token) }

        editor.delete(try #require(try editor.all("Room").first))
        try editor.save()

        #expect(viewerA.value(forKey: "room") == nil)
        #expect(viewerB.value(forKey: "room") == nil)
        #expect(viewer.registeredObject(for: viewerRoom.objectID) == nil)
        // Merged, not changed: the viewer has nothing of its own to save.
        #expect(!viewerA.hasChanges && !viewerB.hasChanges && !viewer.hasChanges)
        #expect(Set(heard.flatMap(\.refreshed).map(\.objectID)) == [viewerA.objectID, viewerB.objectID])
        #expect(heard.flatMap(\.deleted).map(\.objectID) == [viewerRoom.objectID])
        // A child that does not merge keeps what it read until it refreshes.
        #expect(bystanderA.value(forKey: "room") != nil)
        // The stores still hold the room until the parent saves; then the sessions are saved without it.
        #expect(try fixture.context().all("Room").count == 1)
        try parent.save()
        let saved = try fixture.context().all("Session")
        #expect(saved.count == 2 && saved.allSatisfy { $0.value(forKey: "room") == nil })
        #expect(try fixture.context().all("Room").isEmpty)
    }

    @Test func aChildDoesNotMergeItsOwnSaveNorOtherTopContextsSaves() throws {
        let fixture = try Self.savedFixture(.sqlite)
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        let childA = try Self.session("a", in: child)
        let childB = try Self.session("b", in: child)
        childA.setValue("mine", forKey: "title")
        try child.save()
        #expect(childA.value(forKey: "title") as? String == "mine")
        #expect(!child.hasChanges)

        // Another top context's save is the parent's business: the child reads through its parent.
        let writer = fixture.context()
        try Self.session("b", in: writer).setValue("B-elsewhere", forKey: "title")
        try writer.save()
        _ = try child.all("Session")
        #expect(childB.value(forKey: "title") as? String == "B")

        // Turned off, the parent's saves no longer reach the child.
        child.automaticallyMergesChangesFromParent = false
        try Self.session("a", in: parent).setValue("parent's", forKey: "title")
        try parent.save()
        #expect(childA.value(forKey: "title") as? String == "mine")
    }

    @Test(arguments: StoreKind.all)
    func threeLevelsMergeOneLevelAtATime(kind: StoreKind) throws {
        let fixture = try Self.savedFixture(kind)
        let top = fixture.context()
        let middle = ManagedObjectContext(parent: top)
        middle.automaticallyMergesChangesFromParent = true
        let leaf = ManagedObjectContext(parent: middle)
        leaf.automaticallyMergesChangesFromParent = true
        let editor = ManagedObjectContext(parent: middle)
        let middleA = try Self.session("a", in: middle)
        let leafA = try Self.session("a", in: leaf)
        let leafB = try Self.session("b", in: leaf)

        // A sibling's save into the middle reaches the leaf, not the top.
        try Self.session("b", in: editor).setValue("B-editor", forKey: "title")
        let note = editor.insertNewObject(forEntityName: "Note")
        note.setValue("new", forKey: "text")
        try editor.save()
        #expect(leafB.value(forKey: "title") as? String == "B-editor")
        #expect(try leaf.all("Note").count == 1)
        #expect(try top.all("Note").isEmpty)

        // The top's save reaches the middle, and the middle's own save reaches the leaf.
        leafA.setValue(90, forKey: "duration")
        try Self.session("a", in: top).setValue("A-top", forKey: "title")
        try top.save()
        #expect(middleA.value(forKey: "title") as? String == "A-top")
        // The middle merged the top's save; merging is not a save, so the leaf still shows what it read...
        #expect(leafA.value(forKey: "title") as? String == "A")
        middleA.setValue("A-middle", forKey: "title")
        try middle.save()
        // ...until the middle saves: then its changes reach the leaf, whose own change stays on top.
        #expect(leafA.value(forKey: "title") as? String == "A-middle")
        #expect(leafA.value(forKey: "duration") as? Int == 90)
        #expect(leafA.hasChanges)
        try leaf.save()
        try middle.save()
        try top.save()
        let saved = try Self.session("a", in: fixture.context())
        #expect(saved.value(forKey: "title") as? String == "A-middle")
        #expect(saved.value(forKey: "duration") as? Int == 90)
        #expect(try fixture.context().all("Note").count == 1)
    }

    @Test func aFailedSaveOfTheParentMergesNothing() throws {
        let fixture = try Self.savedFixture()
        let parent = fixture.context()
        let child = ManagedObjectContext(parent: parent)
        child.automaticallyMergesChangesFromParent = true
        let childA = try Self.session("a", in: child)
        let parentA = try Self.session("a", in: parent)
        parentA.setValue("A2", forKey: "title")
        parent.makeSession("c", title: nil).setValue(nil, forKey: "title")
        #expect(throws: ValidationError.self) { try parent.save() }
        #expect(childA.value(forKey: "title") as? String == "A")
        #expect(!childA.hasChanges)
        #expect(parent.hasChanges)
        #expect(try fixture.context().all("Session").count == 2)
    }
}
