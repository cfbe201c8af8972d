import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Core Data's custom accessors (`willChangeValue`, `setPrimitiveValue`, `didChangeValue`; `willAccessValue`,
/// `primitiveValue`, `didAccessValue`) and `refreshAllObjects()`.
@Suite("Custom accessors and refreshing every object")
struct CustomAccessorTests {
    @Test(arguments: StoreKind.all)
    func aBracketedPrimitiveChangeIsTrackedReportedSavedAndUndoable(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        setup.makeSession("a", title: "Old")
        try setup.save()

        let context = fixture.context()
        let session = try #require(try context.all("Session").first)
        context.refresh(session, mergeChanges: false)
        #expect(session.isFault)
        session.willAccessValue(forKey: "title")
        #expect(!session.isFault)
        #expect(session.primitiveValue(forKey: "title") as? String == "Old")
        session.didAccessValue(forKey: "title")

        var updated: [ManagedObject] = []
        let token = context.addObserver { event in
            if case .objectsDidChange(let change) = event { updated += change.updated }
        }
        defer { context.removeObserver(token) }
        session.willChangeValue(forKey: "title")
        session.setPrimitiveValue("New", forKey: "title")
        session.didChangeValue(forKey: "title")
        context.processPendingChanges()
        #expect(updated.map(\.objectID) == [session.objectID])
        #expect(session.isUpdated && session.changedValues().keys.sorted() == ["title"])

        context.undo()
        #expect(session.value(forKey: "title") as? String == "Old")
        context.redo()
        #expect(session.value(forKey: "title") as? String == "New")
        try context.save()
        #expect(try fixture.context().all("Session").first?.value(forKey: "title") as? String == "New")
    }

    /// A to-many set through the notices: undo puts back the members it had before willChangeValue.
    @Test func aBracketedToManyChangeIsUndoneToItsFormerMembers() throws {
        let fixture = Fixture(.inMemory)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        let ada = context.insertNewObject(forEntityName: "Person")
        let bob = context.insertNewObject(forEntityName: "Person")
        session.setValue([ada], forKey: "persons")
        try context.save()
        context.processPendingChanges()

        session.willChangeValue(forKey: "persons")
        session.setPrimitiveValue([bob], forKey: "persons")
        session.didChangeValue(forKey: "persons")
        context.processPendingChanges()
        #expect(session.objects(forKey: "persons") == [bob])
        context.undo()
        #expect(session.objects(forKey: "persons") == [ada])
        context.redo()
        #expect(session.objects(forKey: "persons") == [bob])
    }

    @Test(arguments: StoreKind.all)
    func refreshingEveryObjectFaultsTheUnchangedAndKeepsChanges(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let setup = fixture.context()
        for guid in ["a", "b", "c"] { setup.makeSession(guid, title: guid.uppercased()) }
        try setup.save()

        let context = fixture.context()
        let sessions = try context.all("Session", sortedBy: "guid")
        let (a, b, c) = (sessions[0], sessions[1], sessions[2])
        _ = a.value(forKey: "title")
        b.setValue(45, forKey: "duration")
        context.delete(c)
        let new = context.makeSession("d", title: "D")
        // Another context saves a new title for each.
        let other = fixture.context()
        for session in try other.all("Session") {
            session.setValue("\(session.value(forKey: "title") as? String ?? "")2", forKey: "title")
        }
        try other.save()

        context.refreshAllObjects()
        #expect(a.isFault && !a.hasChanges)
        #expect(a.value(forKey: "title") as? String == "A2")
        // b keeps its change, on top of the stores' values.
        #expect(!b.isFault && b.value(forKey: "title") as? String == "B2" && b.value(forKey: "duration") as? Int == 45)
        #expect(b.changedValues().keys.sorted() == ["duration"])
        #expect(c.isDeleted && new.isInserted && new.value(forKey: "title") as? String == "D")
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        let saved = try fixture.context().all("Session", sortedBy: "guid")
        #expect(saved.compactMap { $0.value(forKey: "guid") as? String } == ["a", "b", "d"])
        #expect(saved[1].value(forKey: "duration") as? Int == 45)
    }
}

/// Core Data's `objectIDs(forRelationshipNamed:)`.
@Suite("Relationship IDs without faulting")
struct RelationshipIDTests {
    @Test(arguments: StoreKind.all)
    func theIDsOfARelationshipComeWithoutLoadingTheDestinations(kind: StoreKind) throws {
        let fixture = try Fixture.twoSessionsInOneRoom(kind)
        let context = fixture.context()
        let room = try #require(try context.all("Room").first)
        let ids = room.objectIDs(forRelationshipNamed: "sessions")
        #expect(ids.count == 2)
        #expect(ids.allSatisfy { context.registeredObject(for: $0).map(\.isFault) ?? true })
        let sessions = try context.all("Session")
        #expect(Set(ids) == Set(sessions.map(\.objectID)))
        #expect(sessions[0].objectIDs(forRelationshipNamed: "room") == [room.objectID])
        sessions[0].setValue(nil, forKey: "room")
        #expect(sessions[0].objectIDs(forRelationshipNamed: "room").isEmpty)
        #expect(room.objectIDs(forRelationshipNamed: "sessions") == [sessions[1].objectID])
        #expect(sessions[0].objectIDs(forRelationshipNamed: "persons").isEmpty)
    }
}

/// Core Data's `hasPersistentChangedValues`: a change to a transient property is a change, not a persistent one.
@Suite("Persistent changes")
struct PersistentChangeTests {
    @Test func aTransientChangeIsNoPersistentChange() throws {
        let fixture = Fixture(.inMemory)
        try fixture.addStore()
        let context = fixture.context()
        let new = context.makeSession("a")
        #expect(new.hasPersistentChangedValues)
        try context.save()
        #expect(!new.hasPersistentChangedValues && !new.hasChanges)
        new.setValue("note to self", forKey: "scratch")
        #expect(new.hasChanges && !new.hasPersistentChangedValues)
        new.setValue(15, forKey: "duration")
        #expect(new.hasPersistentChangedValues)
        new.setValue(30, forKey: "duration")  // back to the saved value
        #expect(!new.hasPersistentChangedValues)
    }
}
