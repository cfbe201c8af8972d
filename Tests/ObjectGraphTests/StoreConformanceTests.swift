import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// Behaviour every store type must share, run against each kind in `StoreKind.all`.
@Suite("Store conformance")
struct StoreConformanceTests {
    /// A save of an entity whose properties are all stored attributes (`Note`) hands the store the object's values
    /// without copying them; changing the object afterwards must not change what the store holds.
    @Test(arguments: StoreKind.all)
    func changingASavedObjectLeavesTheSavedValuesAlone(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let note = context.insertNewObject(forEntityName: "Note")
        note.setValue("saved", forKey: "text")
        try context.save()
        note.setValue("unsaved", forKey: "text")
        let reader = fixture.context()
        #expect(try reader.all("Note").map { $0.value(forKey: "text") as? String } == ["saved"])
        context.rollback()
        #expect(note.value(forKey: "text") as? String == "saved")
        note.setValue("saved again", forKey: "text")
        try context.save()
        #expect(try fixture.context().all("Note").map { $0.value(forKey: "text") as? String } == ["saved again"])
    }

    /// Faults of a plain entity without to-many relationships share its template of default values until they
    /// fire; firing one must not write into the template, or later new objects would start with its values.
    @Test(arguments: StoreKind.all)
    func firingAFaultLeavesNewObjectsTheirDefaults(kind: StoreKind) throws {
        let counter = EntityDescription(name: "Counter", properties: [
            AttributeDescription(name: "count", type: .integer64, defaultValue: 7),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [counter]))
        let folder = TemporaryFolder()
        try coordinator.addPersistentStore(type: kind.type, at: kind.url("counters", in: folder))
        let writer = ManagedObjectContext(coordinator: coordinator)
        writer.insertNewObject(forEntityName: "Counter").setValue(5, forKey: "count")
        try writer.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        let fault = try #require(try reader.all("Counter").first)
        #expect(fault.value(forKey: "count") as? Int == 5)
        #expect(reader.insertNewObject(forEntityName: "Counter").value(forKey: "count") as? Int == 7)
        let later = try #require(try ManagedObjectContext(coordinator: coordinator).all("Counter").first)
        #expect(later.isFault)
        #expect(later.value(forKey: "count") as? Int == 5)
    }

    @Test(arguments: StoreKind.all)
    func insertSaveAndFetchInAnotherContext(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let start = Date(timeIntervalSinceReferenceDate: 600_000_000)
        let session = context.makeSession("g1", title: "Keynote", start: start)
        #expect(session.objectID.isTemporaryID)
        #expect(session.isInserted)
        try context.save()
        #expect(!session.objectID.isTemporaryID)
        #expect(!session.isInserted)
        #expect(!context.hasChanges)

        let other = fixture.context()
        let fetched = try other.all("Session")
        #expect(fetched.count == 1)
        #expect(fetched[0].objectID == session.objectID)
        #expect(fetched[0].value(forKey: "title") as? String == "Keynote")
        #expect(fetched[0].value(forKey: "start") as? Date == start)
        #expect(fetched[0].value(forKey: "duration") as? Int == 30)
    }

    @Test(arguments: StoreKind.all)
    func transientValuesAreNotSaved(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        context.makeSession("g1").setValue("temp", forKey: "scratch")
        try context.save()
        let fetched = try fixture.context().all("Session")
        #expect(fetched[0].value(forKey: "scratch") == nil)
    }

    @Test(arguments: StoreKind.all)
    func updateTracksChangedAndCommittedValues(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("g1", title: "Old")
        try context.save()
        session.setValue("New", forKey: "title")
        #expect(session.isUpdated)
        #expect(context.updatedObjects == [session])
        #expect(session.changedValues()["title"] as? String == "New")
        #expect(session.committedValues(forKeys: ["title"])["title"] as? String == "Old")
        try context.save()
        #expect(!session.isUpdated)
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "New")
    }

    @Test(arguments: StoreKind.all)
    func fetchedObjectsAreFaultsThatKeepTheirValues(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        _ = writer.makeSession("g1", title: "Old")
        try writer.save()

        let reader = fixture.context()
        let fetched = try reader.fetch(FetchRequest(entityName: "Session"))
        #expect(fetched.count == 1 && fetched[0].isFault)
        #expect(fetched[0].value(forKey: "title") as? String == "Old")
        #expect(!fetched[0].isFault)

        // Asking for values gives loaded objects.
        let request = FetchRequest(entityName: "Session")
        request.returnsObjectsAsFaults = false
        let loaded = try fixture.context().fetch(request)
        #expect(loaded.count == 1 && !loaded[0].isFault)
        #expect(loaded[0].value(forKey: "title") as? String == "Old")
    }

    /// A fixture whose store holds the saved sessions g0, g1, … titled by `title(index)`, and the context that
    /// saved them.
    private func savedSessions(_ kind: StoreKind, count: Int,
                               title: (Int) -> String) throws -> (Fixture, ManagedObjectContext) {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        for index in 0..<count { _ = writer.makeSession("g\(index)", title: title(index)) }
        try writer.save()
        return (fixture, writer)
    }

    @Test(arguments: StoreKind.all)
    func faultsOfASortedWholeFetchFireWithTheirOwnValuesAndSaveOnTheirVersion(kind: StoreKind) throws {
        let (fixture, writer) = try savedSessions(kind, count: 40) { "T\($0 % 7)-\($0)" }
        let edited = try #require(try writer.all("Session").first { $0.value(forKey: "guid") as? String == "g5" })
        edited.setValue("T5-5 edited", forKey: "title")
        try writer.save()  // g5 is at version 2 now

        let reader = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "title BEGINSWITH 'T5'")
        request.sortKeys = [SortKey("title", ascending: false)]
        let fetched = try reader.fetch(request)
        #expect(fetched.allSatisfy { $0.isFault })
        #expect(fetched.map { $0.value(forKey: "guid") as? String } == ["g5", "g33", "g26", "g19", "g12"])
        #expect(fetched.map { $0.value(forKey: "title") as? String }
            == ["T5-5 edited", "T5-33", "T5-26", "T5-19", "T5-12"])
        // A fired fault holds its record's version (2 for the edited one): saving a change to it is no conflict.
        let again = fetched[0]
        again.setValue("by reader", forKey: "title")
        try reader.save()
        let saved = try fixture.context().all("Session").first { $0.value(forKey: "guid") as? String == "g5" }
        #expect(saved?.value(forKey: "title") as? String == "by reader")
    }

    @Test(arguments: StoreKind.all)
    func objectsThatOutliveTheirContextHaveNoContextAndStillFire(kind: StoreKind) throws {
        let (fixture, _) = try savedSessions(kind, count: 10) { "T\($0)" }
        var objects: [ManagedObject] = []
        weak var gone: ManagedObjectContext?
        do {
            let reader = fixture.context()
            gone = reader
            let request = FetchRequest(entityName: "Session")
            request.sortKeys = [SortKey("guid")]
            objects = try reader.fetch(request)
            #expect(objects.allSatisfy { $0.managedObjectContext === reader && $0.isFault })
        }
        #expect(gone == nil)
        #expect(objects.allSatisfy { $0.managedObjectContext == nil })
        // Faults that kept their fetch's values still give the attributes.
        #expect(objects.map { $0.value(forKey: "title") as? String } == (0..<10).map { "T\($0)" })
    }

    /// A fired object's to-many list holds its destinations' IDs until first read (made objects of the context
    /// then, through the context's link): read while the context lives it gives the saved destinations; read
    /// after the context is gone it is empty, as the relationships of a fault fired without its context are.
    @Test(arguments: StoreKind.all)
    func aToManyListReadsItsDestinationsWhileItsContextLivesAndNoneAfter(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        for name in ["Hall A", "Hall B"] {
            let room = writer.insertNewObject(forEntityName: "Room")
            room.setValue(name, forKey: "name")
            for index in 0..<2 { writer.makeSession("\(name)-\(index)").setValue(room, forKey: "room") }
        }
        try writer.save()

        let reader = fixture.context()
        let rooms = try reader.all("Room", sortedBy: "name")
        #expect(rooms.map { $0.value(forKey: "name") as? String } == ["Hall A", "Hall B"])
        let guids = rooms[0].objects(forKey: "sessions").compactMap { $0.value(forKey: "guid") as? String }
        #expect(guids.sorted() == ["Hall A-0", "Hall A-1"])
        #expect(rooms[0].objects(forKey: "sessions").allSatisfy { $0.managedObjectContext === reader })

        var kept: ManagedObject?
        weak var gone: ManagedObjectContext?
        do {
            let shortLived = fixture.context()
            gone = shortLived
            kept = try shortLived.all("Room", sortedBy: "name").last
            #expect(kept?.value(forKey: "name") as? String == "Hall B")  // fired, its list not read yet
        }
        #expect(gone == nil)
        #expect(kept?.managedObjectContext == nil)
        #expect(kept?.objects(forKey: "sessions").isEmpty == true)
        #expect(kept?.value(forKey: "name") as? String == "Hall B")
    }

    @Test(arguments: StoreKind.all)
    func aFaultFiredAfterAnotherSaveShowsTheSavedValues(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let writer = fixture.context()
        let session = writer.makeSession("g1", title: "Old")
        try writer.save()

        let reader = fixture.context()
        let fault = try #require(try reader.fetch(FetchRequest(entityName: "Session")).first)
        #expect(fault.isFault)
        session.setValue("New", forKey: "title")
        try writer.save()
        // The values the fetch kept are older than the save: the fault reads the store.
        #expect(fault.value(forKey: "title") as? String == "New")
        // And a save by the reader itself then succeeds (it holds the current version).
        fault.setValue("Newer", forKey: "title")
        try reader.save()
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "Newer")
    }

    @Test(arguments: StoreKind.all)
    func settingTheSameValueBackIsNoChange(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("g1", title: "Same")
        try context.save()
        session.setValue("Other", forKey: "title")
        session.setValue("Same", forKey: "title")
        #expect(!session.isUpdated)
        #expect(!context.hasChanges)
    }

    @Test(arguments: StoreKind.all)
    func deleteAndSaveRemovesTheObject(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("g1")
        try context.save()
        let id = session.objectID
        context.delete(session)
        #expect(session.isDeleted)
        #expect(context.deletedObjects == [session])
        try context.save()
        #expect(session.managedObjectContext == nil)
        #expect(try fixture.context().all("Session").isEmpty)
        #expect(throws: StoreError(code: .objectNotFound, message: "")) {
            try fixture.context().existingObject(with: id)
        }
    }

    @Test(arguments: StoreKind.all)
    func deletingAnUnsavedObjectJustRemovesIt(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("g1")
        context.delete(session)
        #expect(!session.isInserted)
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        try context.save()
        #expect(try fixture.context().all("Session").isEmpty)
    }

    @Test(arguments: StoreKind.all)
    func cascadeDeletesDestinations(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let conference = context.insertNewObject(forEntityName: "Conference")
        conference.setValue("CCC", forKey: "acronym")
        let a = context.makeSession("a"), b = context.makeSession("b")
        a.setValue(conference, forKey: "conference")
        b.setValue(conference, forKey: "conference")
        try context.save()
        context.delete(conference)
        #expect(a.isDeleted && b.isDeleted)
        try context.save()
        let other = fixture.context()
        #expect(try other.all("Session").isEmpty)
        #expect(try other.all("Conference").isEmpty)
    }

    @Test(arguments: StoreKind.all)
    func nullifyClearsTheInverse(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Saal 1", forKey: "name")
        let session = context.makeSession("a")
        session.setValue(room, forKey: "room")
        try context.save()
        context.delete(room)
        #expect(session.value(forKey: "room") == nil)
        #expect(!session.isDeleted)
        try context.save()
        let fetched = try fixture.context().all("Session")
        #expect(fetched.count == 1)
        #expect(fetched[0].value(forKey: "room") == nil)
    }

    @Test(arguments: StoreKind.all)
    func denyRefusesTheSaveAndChangesNothing(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let track = context.insertNewObject(forEntityName: "Track")
        let session = context.makeSession("a")
        session.setValue(track, forKey: "track")
        try context.save()
        context.delete(track)
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.code == .relationshipDeniedDelete)
        #expect(error.context.key == "sessions")
        #expect(track.isDeleted)
        #expect(context.hasChanges)
        #expect(try fixture.context().all("Track").count == 1)
        context.rollback()
        #expect(!track.isDeleted)
        #expect(session.value(forKey: "track") as? ManagedObject === track)
    }

    @Test(arguments: StoreKind.all)
    func noActionLeavesTheDestinationAlone(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let note = context.insertNewObject(forEntityName: "Note")
        let session = context.makeSession("a")
        session.addObject(note, toRelationship: "notes")
        try context.save()
        context.delete(session)
        #expect(!note.isDeleted)
        try context.save()
        #expect(try fixture.context().all("Note").count == 1)
    }

    @Test(arguments: StoreKind.all)
    func inversesStayConsistent(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let saal1 = context.insertNewObject(forEntityName: "Room")
        let saal2 = context.insertNewObject(forEntityName: "Room")
        saal1.setValue("1", forKey: "name")
        saal2.setValue("2", forKey: "name")
        let session = context.makeSession("a")
        session.setValue(saal1, forKey: "room")
        #expect(saal1.objects(forKey: "sessions") == [session])
        saal2.addObject(session, toRelationship: "sessions")
        #expect(session.value(forKey: "room") as? ManagedObject === saal2)
        #expect(saal1.objects(forKey: "sessions").isEmpty)
        let ann = context.insertNewObject(forEntityName: "Person")
        let bob = context.insertNewObject(forEntityName: "Person")
        session.setValue([ann, bob], forKey: "persons")
        #expect(ann.objects(forKey: "sessions") == [session])
        #expect(session.value(forKey: "persons") as? [ManagedObject] == [ann, bob])
        session.removeObject(ann, fromRelationship: "persons")
        #expect(ann.objects(forKey: "sessions").isEmpty)
        try context.save()

        let other = fixture.context()
        let rooms = try other.all("Room", sortedBy: "name")
        #expect(rooms[0].objects(forKey: "sessions").isEmpty)
        #expect(rooms[1].objects(forKey: "sessions").map { $0.value(forKey: "guid") as? String } == ["a"])
        let persons = try other.all("Session")[0].objects(forKey: "persons")
        #expect(persons.map(\.objectID) == [bob.objectID])
    }

    @Test(arguments: StoreKind.all)
    func validationFailuresAreAllReportedAndNothingIsWritten(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.insertNewObject(forEntityName: "Session")
        session.setValue(-5, forKey: "duration")
        session.setValue("bad code", forKey: "code")
        let run = context.insertNewObject(forEntityName: "Run")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.code == .multipleErrors)
        let codes = Set(error.errors.map(\.code))
        #expect(codes == [.missingMandatoryProperty, .numberTooSmall, .stringPatternMismatch])
        #expect(error.errors.filter { $0.code == .missingMandatoryProperty }.count == 2)
        let runError = try #require(error.errors.first { $0.context.entityName == "Run" })
        #expect(runError.message.contains("Process ID"))
        #expect(!runError.message.contains("-1"))
        #expect(context.insertedObjects == [session, run])
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Session")) == 0)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Run")) == 0)
    }

    @Test(arguments: StoreKind.all)
    func subclassHooksRun(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore(configuration: "Personal")
        let context = fixture.context()
        let run = try #require(context.insertNewObject(forEntityName: "Run") as? Run)
        #expect(run.date != nil)
        #expect(run.processID == -1)
        #expect(throws: ValidationError(code: .numberTooSmall, message: "")) { try context.save() }
        run.processID = 4242
        try context.save()
        let fetched = try #require(try fixture.context().all("Run").first as? Run)
        #expect(fetched.processID == 4242)
    }

    @Test(arguments: StoreKind.all)
    func rollbackDiscardsEverything(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let kept = context.makeSession("kept", title: "Before")
        try context.save()
        kept.setValue("After", forKey: "title")
        let added = context.makeSession("added")
        context.rollback()
        #expect(kept.value(forKey: "title") as? String == "Before")
        #expect(added.managedObjectContext == nil)
        #expect(!context.hasChanges)
        #expect(try context.all("Session").count == 1)
    }

    /// Objects deleted before they were ever saved leave the context at the save (or the rollback); one whose
    /// deletion was undone is saved, and a redone deletion counts again.
    @Test(arguments: StoreKind.all)
    func objectsDeletedWhileInsertedLeaveAtTheSaveOrRollback(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let gone = context.makeSession("gone")
        let kept = context.makeSession("kept")
        let redone = context.makeSession("redone")
        context.processPendingChanges()
        context.delete(gone)
        context.delete(kept)
        context.processPendingChanges()
        context.undo()  // kept and gone come back
        #expect(!kept.isDeleted && !gone.isDeleted)
        context.delete(gone)
        context.delete(redone)
        context.processPendingChanges()
        context.undo()
        context.redo()  // gone and redone deleted again
        #expect(gone.isDeleted && redone.isDeleted && !kept.isDeleted)
        try context.save()
        #expect(gone.managedObjectContext == nil && redone.managedObjectContext == nil)
        #expect(kept.managedObjectContext === context)
        #expect(context.registeredObjects.map(\.objectID) == [kept.objectID])
        #expect(try fixture.context().all("Session").map { $0.value(forKey: "guid") as? String } == ["kept"])

        let discarded = context.makeSession("discarded")
        context.delete(discarded)
        #expect(context.registeredObjects.count == 2)
        context.rollback()
        #expect(discarded.managedObjectContext == nil)
        #expect(context.registeredObjects.map(\.objectID) == [kept.objectID])
        try context.save()
        #expect(try fixture.context().all("Session").count == 1)
    }

    @Test(arguments: StoreKind.all)
    func undoAndRedoWorkInGroups(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("A", forKey: "name")
        let session = context.makeSession("s")
        try context.save()

        session.setValue("First", forKey: "title")
        session.setValue(room, forKey: "room")
        context.processPendingChanges()
        session.setValue("Second", forKey: "title")
        context.undo()
        #expect(session.value(forKey: "title") as? String == "First")
        #expect(session.value(forKey: "room") as? ManagedObject === room)
        context.undo()
        #expect(session.value(forKey: "title") as? String == "Talk s")
        #expect(session.value(forKey: "room") == nil)
        #expect(room.objects(forKey: "sessions").isEmpty)
        #expect(!context.hasChanges)
        context.redo()
        #expect(session.value(forKey: "title") as? String == "First")
        #expect(room.objects(forKey: "sessions") == [session])

        let extra = context.makeSession("x")
        context.processPendingChanges()
        context.undo()
        #expect(extra.managedObjectContext == nil)
        #expect(!context.insertedObjects.contains(extra))
        context.delete(session)
        context.processPendingChanges()
        context.undo()
        #expect(!session.isDeleted)
        #expect(room.objects(forKey: "sessions") == [session])
    }

    @Test(arguments: StoreKind.all)
    func fetchMergesPendingChanges(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let a = context.makeSession("a", title: "Alpha")
        let b = context.makeSession("b", title: "Beta")
        try context.save()
        context.delete(a)
        b.setValue("Zeta", forKey: "title")
        context.makeSession("c", title: "Gamma")
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("title")]
        #expect(try context.fetch(request).map { $0.value(forKey: "guid") as? String } == ["c", "b"])
        request.predicate = try ObjectPredicate(format: "title BEGINSWITH %@", "B")
        #expect(try context.fetch(request).isEmpty)
        request.includesPendingChanges = false
        #expect(try context.fetch(request).map { $0.value(forKey: "guid") as? String } == ["b"])
        request.predicate = nil
        request.includesPendingChanges = true
        request.fetchOffset = 1
        request.fetchLimit = 1
        #expect(try context.fetch(request).map { $0.value(forKey: "guid") as? String } == ["b"])
        #expect(try context.count(for: request) == 1)
    }

    @Test(arguments: StoreKind.all)
    func subentitiesAreIncludedUnlessExcluded(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        context.makeSession("plain")
        let workshop = context.insertNewObject(forEntityName: "Workshop")
        workshop.setValue("w", forKey: "guid")
        workshop.setValue("Workshop", forKey: "title")
        workshop.setValue(20, forKey: "capacity")
        try context.save()
        let other = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("guid")]
        let all = try other.fetch(request)
        #expect(all.map(\.entity.name) == ["Session", "Workshop"])
        #expect(all[1].value(forKey: "capacity") as? Int == 20)
        request.includesSubentities = false
        #expect(try other.fetch(request).map(\.entity.name) == ["Session"])
    }

    @Test(arguments: StoreKind.all)
    func uriRepresentationRoundTrips(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        let store = try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        let temporary = session.objectID.uriRepresentation()
        #expect(temporary.absoluteString.hasPrefix("x-coredata:///Session/t"))
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: temporary) == session.objectID)
        try context.save()
        let uri = session.objectID.uriRepresentation()
        #expect(uri.absoluteString == "x-coredata://\(store.identifier)/Session/p\(session.objectID.referenceKey)")
        let id = try #require(fixture.coordinator.managedObjectID(forURIRepresentation: uri))
        #expect(id == session.objectID)
        #expect(try fixture.context().existingObject(with: id).value(forKey: "guid") as? String == "a")
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/x")!) == nil)
        let foreign = URL(string: "x-coredata://00000000-0000-0000-0000-000000000000/Session/p1")!
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: foreign) == nil)
    }

    @Test(arguments: StoreKind.all)
    func obtainPermanentIDsBeforeSaving(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        try context.obtainPermanentIDs(for: [session])
        let id = session.objectID
        #expect(!id.isTemporaryID)
        #expect(session.isInserted)
        try context.save()
        #expect(session.objectID == id)
        #expect(try fixture.context().existingObject(with: id).value(forKey: "guid") as? String == "a")
    }
}

@Suite("Store conformance, more")
struct MoreConformanceTests {
    @Test(arguments: StoreKind.all)
    func orderedToManyTakesTheOrderGiven(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let people = (0..<4).map { index -> ManagedObject in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("p\(index)", forKey: "name")
            return person
        }
        let session = context.makeSession("s")
        session.setValue([people[2], people[0], people[3]], forKey: "persons")
        session.setValue([people[3], people[1], people[2]], forKey: "persons")
        #expect(session.value(forKey: "persons") as? [ManagedObject] == [people[3], people[1], people[2]])
        #expect(people[0].objects(forKey: "sessions").isEmpty)
        try context.save()
        let reader = fixture.context()
        let fetched = try reader.all("Session")[0].objects(forKey: "persons")
        #expect(fetched.map { $0.value(forKey: "name") as? String } == ["p3", "p1", "p2"])
    }

    @Test(arguments: StoreKind.all)
    func fetchingSomePropertiesNeverLosesTheOthers(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        context.makeSession("s", title: "Full title", start: Date(timeIntervalSinceReferenceDate: 5))
        try context.save()
        let request = FetchRequest(entityName: "Session")
        request.propertiesToFetch = ["guid"]
        let reader = fixture.context()
        let fetched = try reader.fetch(request)
        #expect(fetched[0].value(forKey: "title") as? String == "Full title")
        #expect(fetched[0].value(forKey: "start") as? Date == Date(timeIntervalSinceReferenceDate: 5))
    }
}
