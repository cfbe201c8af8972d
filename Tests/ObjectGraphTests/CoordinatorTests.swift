import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// A custom atomic store for tests: read-only, its objects given in code (the atomic-store API in use).
final class FixedStore: AtomicStore, @unchecked Sendable {  // used only under its coordinator's lock
    override class var storeType: PersistentStoreType { "Fixed" }

    override func load() throws {
        let ids = (1...3).map { objectID(forEntityName: "Session", referenceKey: Int64($0)) }
        addCacheNodes(ids.enumerated().map { index, id in
            StoreRecord(objectID: id, values: ["guid": "fixed-\(index)", "title": "Fixed \(index)", "duration": 30])
        })
    }
}

@Suite("Coordinator")
struct CoordinatorTests {
    init() {
        PersistentStoreCoordinator.registerStoreClass(FixedStore.self, forStoreType: "Fixed")
    }

    func titles(_ objects: [ManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "title") as? String ?? "?" }
    }

    /// Records of several entities, interleaved, with a key given twice: each lands in its entity's table, the
    /// last of a key wins and is counted once, and a later call replaces what the store holds.
    @Test func cacheNodesGoToTheirEntitiesAndTheLastOfAKeyWins() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(type: .inMemory)
        let atomic = try #require(store as? AtomicStore)
        func room(_ key: Int64, _ name: String) -> StoreRecord {
            StoreRecord(objectID: store.objectID(forEntityName: "Room", referenceKey: key), values: ["name": name])
        }
        func track(_ key: Int64, _ name: String) -> StoreRecord {
            StoreRecord(objectID: store.objectID(forEntityName: "Track", referenceKey: key), values: ["name": name])
        }
        atomic.addCacheNodes([room(1, "A"), track(1, "T1"), room(2, "B"), room(1, "A2"), track(5, "T5")])
        #expect(atomic.cacheNodeCount == 4)
        #expect(atomic.nextReferenceKey == 6)
        let context = ManagedObjectContext(coordinator: coordinator)
        let rooms = try context.fetch(FetchRequest(entityName: "Room")).map { $0.value(forKey: "name") as? String }
        #expect(rooms.sorted { ($0 ?? "") < ($1 ?? "") } == ["A2", "B"])
        let tracks = try context.fetch(FetchRequest(entityName: "Track")).count
        #expect(tracks == 2)
        atomic.addCacheNodes([track(5, "T5b"), room(3, "C")])
        #expect(atomic.cacheNodeCount == 5)
        let renamed = atomic.cacheNode(for: store.objectID(forEntityName: "Track", referenceKey: 5))
        #expect(renamed?["name"] as? String == "T5b")
        #expect(
            atomic.cacheNode(for: store.objectID(forEntityName: "Room", referenceKey: 1))?["name"] as? String
                == "A2")
        atomic.addCacheNodes([])
        #expect(atomic.cacheNodeCount == 5)
    }

    @Test func fetchAcrossStoresSortsTheUnionThenPages() throws {
        let fixture = Fixture()
        let first = try fixture.addStore("a")
        let second = try fixture.addStore("b")
        let context = fixture.context()
        for (title, store) in [("C", first), ("A", second), ("B", first), ("D", second), ("B", second)] {
            let session = context.makeSession(UUID().uuidString, title: title)
            try context.assign(session, to: store)
        }
        try context.save()
        let other = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.sortKeys = [SortKey("title")]
        let all = try other.fetch(request)
        #expect(titles(all) == ["A", "B", "B", "C", "D"])
        #expect(all[1].objectID.storeIdentifier == first.identifier)
        #expect(all[2].objectID.storeIdentifier == second.identifier)
        request.fetchOffset = 1
        request.fetchLimit = 3
        #expect(titles(try other.fetch(request)) == ["B", "B", "C"])
        #expect(try other.count(for: request) == 3)
        request.affectedStores = [second]
        request.fetchOffset = 0
        request.fetchLimit = 0
        #expect(titles(try other.fetch(request)) == ["A", "B", "D"])
        request.sortKeys = [SortKey("title", ascending: false)]
        request.affectedStores = nil
        #expect(titles(try other.fetch(request)) == ["D", "C", "B", "B", "A"])
    }

    @Test func routingPrefersTheAssignedStore() throws {
        let fixture = Fixture()
        let schedule = try fixture.addStore("schedule", configuration: "Schedule")
        let personal = try fixture.addStore("personal", configuration: "Personal")
        let context = fixture.context()
        let session = context.makeSession("mine")
        try context.assign(session, to: personal)
        try context.save()
        #expect(session.objectID.storeIdentifier == personal.identifier)
        let other = context.makeSession("theirs")
        try context.save()
        #expect(other.objectID.storeIdentifier == schedule.identifier)
    }

    @Test func routingUsesTheOnlyStoreThatHoldsTheEntity() throws {
        let fixture = Fixture()
        try fixture.addStore("schedule", configuration: "Schedule")
        let personal = try fixture.addStore("personal", configuration: "Personal")
        let context = fixture.context()
        let favorite = context.insertNewObject(forEntityName: "Favorite")
        favorite.setValue("g1", forKey: "sessionGUID")
        try context.save()
        #expect(favorite.objectID.storeIdentifier == personal.identifier)
    }

    @Test func strictRoutingRefusesAmbiguousSaves() throws {
        let fixture = Fixture()
        try fixture.addStore("schedule", configuration: "Schedule")
        try fixture.addStore("personal", configuration: "Personal")
        fixture.coordinator.usesStrictRouting = true
        let context = fixture.context()
        context.makeSession("x")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .ambiguousStore)
        #expect(error.candidates.count == 2)
        #expect(context.hasChanges)
    }

    @Test func savingAnEntityNoStoreHoldsFails() throws {
        let fixture = Fixture()
        try fixture.addStore("schedule", configuration: "Schedule")
        let context = fixture.context()
        let favorite = context.insertNewObject(forEntityName: "Favorite")
        favorite.setValue("g1", forKey: "sessionGUID")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .noStoreForEntity)
        #expect(error.context.entityName == "Favorite")
        #expect(favorite.isInserted)
    }

    @Test func assigningToAStoreThatCannotHoldTheObjectFails() throws {
        let fixture = Fixture()
        let schedule = try fixture.addStore("schedule", configuration: "Schedule")
        let fixed = try fixture.coordinator.addPersistentStore(type: "Fixed", at: fixture.folder.file("fixed"),
                                                               options: [.readOnly: true])
        let context = fixture.context()
        let favorite = context.insertNewObject(forEntityName: "Favorite")
        #expect(throws: StoreError(code: .entityNotInConfiguration, message: "")) {
            try context.assign(favorite, to: schedule)
        }
        let session = context.makeSession("s")
        #expect(throws: StoreError(code: .readOnlyStore, message: "")) { try context.assign(session, to: fixed) }
    }

    @Test func readOnlyStoresRefuseChangesBeforeAnythingIsWritten() throws {
        let fixture = Fixture()
        let writable = try fixture.addStore("writable", configuration: "Personal")
        let fixed = try fixture.coordinator.addPersistentStore(type: "Fixed", configurationName: "Schedule",
                                                               at: fixture.folder.file("fixed"), options: [.readOnly: true])
        let context = fixture.context()
        let request = FetchRequest(entityName: "Session")
        request.affectedStores = [fixed]
        request.sortKeys = [SortKey("guid")]
        let fixedSessions = try context.fetch(request)
        #expect(fixedSessions.count == 3)
        fixedSessions[0].setValue("Changed", forKey: "title")
        let mine = context.makeSession("mine")
        try context.assign(mine, to: writable)
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .readOnlyStore)
        #expect(error.objectIDs == [fixedSessions[0].objectID])
        let fresh = fixture.context()
        #expect(try fresh.count(for: FetchRequest(entityName: "Session")) == 3)
        #expect(try fresh.existingObject(with: fixedSessions[0].objectID).value(forKey: "title") as? String == "Fixed 0")
        #expect(context.hasChanges)
    }

    @Test func removingAStoreInvalidatesItsObjects() throws {
        let fixture = Fixture()
        let store = try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a")
        try context.save()
        var invalidated: Set<ManagedObject> = []
        context.addObserver { event in
            if case .objectsDidChange(let change) = event { invalidated.formUnion(change.invalidated) }
        }
        try fixture.coordinator.remove(store)
        #expect(fixture.coordinator.persistentStores.isEmpty)
        #expect(try context.all("Session").isEmpty)
        #expect(session.isInvalid)
        #expect(invalidated == [session])
        #expect(throws: StoreError(code: .storeNotFound, message: "")) { try fixture.coordinator.remove(store) }
    }

    @Test func addingTheSameURLTwiceFails() throws {
        let fixture = Fixture()
        try fixture.addStore("same")
        #expect(throws: StoreError(code: .storeAlreadyAdded, message: "")) { try fixture.addStore("same") }
        #expect(throws: StoreError(code: .unknownStoreType, message: "")) {
            try fixture.coordinator.addPersistentStore(type: "NoSuchType", at: fixture.folder.file("x"))
        }
        #expect(throws: StoreError(code: .unknownConfiguration, message: "")) {
            try fixture.addStore("other", configuration: "NoSuchConfiguration")
        }
        #expect(fixture.coordinator.persistentStores.count == 1)
    }

    /// The coordinator indexes its stores by identifier: attaching checks the identifiers stores have now, also
    /// after an attached store's metadata gave it a new one, and after a store left.
    @Test func attachingChecksTheIdentifiersStoresHaveNow() throws {
        let fixture = Fixture()
        let coordinator = fixture.coordinator
        func detached(_ name: String, uuid: String) throws -> PersistentStore {
            let url = fixture.kind.url(name, in: fixture.folder)
            let store = try coordinator.loadDetachedStore(type: fixture.kind.type, at: url)
            store.metadata.storeUUID = uuid
            return store
        }
        let first = try detached("a", uuid: "UUID-A")
        let second = try detached("b", uuid: "UUID-B")
        try coordinator.attach(first)
        try coordinator.attach(second)
        #expect(throws: StoreError(code: .storeAlreadyAdded, message: "")) { try coordinator.attach(second) }
        #expect(throws: StoreError(code: .storeAlreadyAdded, message: "")) {
            try coordinator.attach(try detached("c", uuid: "UUID-A"))
        }
        #expect(coordinator.persistentStores.count == 2)

        // The attached first store takes a new identifier: the old one is free, the new one taken.
        first.metadata.storeUUID = "UUID-Z"
        #expect(coordinator.persistentStore(withIdentifier: "UUID-Z") === first)
        #expect(coordinator.persistentStore(withIdentifier: "UUID-A") == nil)
        #expect(throws: StoreError(code: .storeAlreadyAdded, message: "")) {
            try coordinator.attach(try detached("d", uuid: "UUID-Z"))
        }
        let third = try detached("e", uuid: "UUID-A")
        try coordinator.attach(third)
        #expect(coordinator.persistentStores.map(\.identifier) == ["UUID-Z", "UUID-B", "UUID-A"])
        #expect(coordinator.persistentStore(withIdentifier: "UUID-A") === third)

        // A store that left frees its identifier; one replaced by another hands its position over.
        try coordinator.remove(second)
        #expect(coordinator.persistentStore(withIdentifier: "UUID-B") == nil)
        try coordinator.attach(try detached("f", uuid: "UUID-B"))
        let fourth = try detached("g", uuid: "UUID-Y")
        try coordinator.replace(first, with: fourth)
        #expect(coordinator.persistentStores.map(\.identifier) == ["UUID-Y", "UUID-A", "UUID-B"])
        #expect(coordinator.persistentStore(withIdentifier: "UUID-Z") == nil)
        // A store no longer attached changes its identifier: the coordinator's stores are unaffected.
        first.metadata.storeUUID = "UUID-B"
        let sixth = coordinator.persistentStore(withIdentifier: "UUID-B")
        #expect(sixth?.url == fixture.kind.url("f", in: fixture.folder))
        #expect(throws: StoreError(code: .storeAlreadyAdded, message: "")) { try coordinator.attach(first) }
        #expect(coordinator.persistentStores.map(\.identifier) == ["UUID-Y", "UUID-A", "UUID-B"])
    }

    /// The content token over atomic stores changes with each save to one of them and with each change of the
    /// attached stores, and with nothing else: not with another coordinator's atomic store (it is kept until some
    /// atomic store of the process changes, then made again from the stores' versions).
    @Test func theContentTokenFollowsTheAtomicStoresItServes() throws {
        let fixture = Fixture(.binary)
        let coordinator = fixture.coordinator
        let first = try fixture.addStore("a")
        let second = try fixture.addStore("b")
        let start = try #require(try coordinator.contentToken())
        #expect(try coordinator.contentToken() == start)
        #expect(try coordinator.contentTokenWithoutWaiting() == start)

        // Another coordinator's atomic store saves (and loads): this one's token stays.
        let other = Fixture(.binary)
        try other.addStore("elsewhere")
        let elsewhere = other.context()
        elsewhere.makeSession("x")
        try elsewhere.save()
        #expect(try coordinator.contentToken() == start)

        // A save to either store changes it.
        let context = fixture.context()
        let session = context.makeSession("a1")
        try context.assign(session, to: second)
        try context.save()
        let saved = try #require(try coordinator.contentToken())
        #expect(saved != start)
        #expect(try coordinator.contentToken() == saved)
        session.setValue("Moved", forKey: "title")
        try context.save()
        #expect(try coordinator.contentToken() != saved)
        let edited = try coordinator.contentToken()

        // So does a change of the stores: removed, added again (a new store object on the same file).
        try coordinator.remove(first)
        let removed = try coordinator.contentToken()
        #expect(removed != edited)
        try fixture.addStore("a")
        #expect(try coordinator.contentToken() != removed)
        #expect(try coordinator.contentToken() != edited)
    }

    @Test func migrationCopiesEveryObjectToANewStore() throws {
        let fixture = Fixture()
        let old = try fixture.addStore("old")
        let context = fixture.context()
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Saal 1", forKey: "name")
        let session = context.makeSession("a")
        session.setValue(room, forKey: "room")
        try context.save()
        let oldID = session.objectID
        let newURL = fixture.folder.file("new.mem")
        let new = try fixture.coordinator.migratePersistentStore(old, to: newURL, type: .inMemory)
        #expect(new.identifier != old.identifier)
        #expect(fixture.coordinator.persistentStores.map(\.identifier) == [new.identifier])
        #expect(fixture.coordinator.persistentStore(for: newURL) === new)
        let fresh = fixture.context()
        let sessions = try fresh.all("Session")
        #expect(sessions.count == 1)
        #expect((sessions[0].value(forKey: "room") as? ManagedObject)?.value(forKey: "name") as? String == "Saal 1")
        #expect(fixture.coordinator.managedObjectID(forURIRepresentation: oldID.uriRepresentation()) == nil)
    }

    @Test func incompatibleModelIsRefusedUnlessAllowed() throws {
        let fixture = Fixture()
        let store = try fixture.addStore()
        var metadata = fixture.coordinator.metadata(for: store)
        #expect(metadata.modelVersionHashes?["Session"] == fixture.model.entitiesByName["Session"]!.versionHash)
        metadata.modelVersionHashes = ["Session": Data([1, 2, 3])]
        #expect(!fixture.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func optimisticLockingDetectsConcurrentChanges() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let setup = fixture.context()
        setup.makeSession("a", title: "Original")
        try setup.save()
        let first = fixture.context(), second = fixture.context()
        let one = try first.all("Session")[0], two = try second.all("Session")[0]
        one.setValue("First", forKey: "title")
        two.setValue("Second", forKey: "title")
        try first.save()
        let error = try #require(throws: StoreError.self) { try second.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.objectIDs == [two.objectID])
        #expect(two.value(forKey: "title") as? String == "Second")

        second.mergePolicy = .overwrite
        try second.save()
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "Second")

        one.setValue("Lost", forKey: "title")
        first.mergePolicy = .rollback
        try first.save()
        #expect(one.value(forKey: "title") as? String == "Second")
        #expect(try fixture.context().all("Session")[0].value(forKey: "title") as? String == "Second")
    }

    @Test func didSaveEventsMergeIntoAnotherContext() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let writer = fixture.context(), reader = fixture.context()
        let session = writer.makeSession("a", title: "v1")
        let doomed = writer.makeSession("b")
        try writer.save()
        let readerCopy = try reader.existingObject(with: session.objectID)
        let readerDoomed = try reader.existingObject(with: doomed.objectID)
        var saved: [ContextDidSave] = []
        writer.addObserver { event in if case .didSave(let info) = event { saved.append(info) } }
        session.setValue("v2", forKey: "title")
        writer.delete(doomed)
        try writer.save()
        #expect(saved.count == 1)
        #expect(saved[0].updatedObjectIDs == [session.objectID])
        #expect(saved[0].deletedObjectIDs == [doomed.objectID])
        #expect(readerCopy.value(forKey: "title") as? String == "v1")
        reader.mergeChanges(fromContextDidSave: saved[0])
        #expect(readerCopy.value(forKey: "title") as? String == "v2")
        #expect(readerDoomed.isInvalid)
        #expect(reader.registeredObject(for: doomed.objectID) == nil)
    }

    @Test func objectsDidChangeReportsInsertsAndUpdates() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        var events: [ObjectsDidChange] = []
        context.addObserver { event in if case .objectsDidChange(let change) = event { events.append(change) } }
        let session = context.makeSession("a")
        context.processPendingChanges()
        #expect(events.count == 1)
        #expect(events[0].inserted == [session])
        try context.save()
        session.setValue("Changed", forKey: "title")
        context.processPendingChanges()
        #expect(events.last?.updated == [session])
    }

    /// An object inserted and deleted again before the event is in neither of its lists; one inserted, then deleted
    /// after its insertion was reported, is reported deleted, and inserted again when undo brings it back.
    @Test func objectsDidChangeLeavesOutObjectsNoLongerInserted() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        var events: [ObjectsDidChange] = []
        context.addObserver { event in if case .objectsDidChange(let change) = event { events.append(change) } }
        let kept = context.makeSession("kept")
        let dropped = context.makeSession("dropped")
        context.delete(dropped)
        context.processPendingChanges()
        #expect(events.count == 1)
        #expect(events[0].inserted == [kept])
        #expect(events[0].deleted.isEmpty)

        let restored = context.makeSession("restored")
        context.processPendingChanges()
        context.delete(restored)
        context.processPendingChanges()
        context.undo()
        context.processPendingChanges()
        #expect(restored.isInserted)
        #expect(events.map(\.inserted) == [[kept], [restored], [], [restored]])
        #expect(events[2].deleted == [restored])
    }

    /// A new object's values are recorded for undo like a saved one's, except while registration is off.
    @Test func valuesOfNewObjectsAreUndoneUnlessRegistrationIsOff() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("s", title: "Original")
        context.processPendingChanges()
        session.setValue("Changed", forKey: "title")
        context.processPendingChanges()
        context.undo()
        #expect(session.value(forKey: "title") as? String == "Original")
        #expect(session.isInserted)

        context.isUndoRegistrationEnabled = false
        session.setValue("Unrecorded", forKey: "title")
        context.isUndoRegistrationEnabled = true
        session.setValue("Recorded", forKey: "title")
        context.processPendingChanges()
        context.undo()
        #expect(session.value(forKey: "title") as? String == "Unrecorded")
    }

    /// Deleting most new objects before a save (the list of inserted objects compacts itself along the way) leaves
    /// the others inserted, in order, and only they are saved.
    @Test func newObjectsDeletedBeforeTheSaveLeaveTheRestInOrder() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let sessions = (0..<100).map { context.makeSession(String(format: "s%03d", $0)) }
        for (index, session) in sessions.enumerated() where index % 10 < 7 { context.delete(session) }
        let kept = sessions.enumerated().filter { $0.offset % 10 >= 7 }.map(\.element)
        #expect(context.insertedObjects == Set(kept))
        context.processPendingChanges()
        context.delete(kept[0])
        context.processPendingChanges()
        context.undo()
        #expect(kept.allSatisfy { $0.isInserted })
        try context.save()
        #expect(context.insertedObjects.isEmpty)
        let saved = try fixture.context().all("Session", sortedBy: "guid").map { $0.value(forKey: "guid") as? String }
        #expect(saved == kept.map { $0.value(forKey: "guid") as? String })
    }

    @Test func refreshDiscardsOrMergesChanges() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("a", title: "Saved")
        try context.save()
        session.setValue("Unsaved", forKey: "title")
        context.refresh(session, mergeChanges: false)
        #expect(session.isFault)
        #expect(session.value(forKey: "title") as? String == "Saved")
        #expect(!session.isFault)
        session.setValue("Mine", forKey: "title")
        context.refresh(session, mergeChanges: true)
        #expect(session.value(forKey: "title") as? String == "Mine")
        #expect(session.isUpdated)
    }

    @Test func storeMetadataCanBeReadAndWritten() throws {
        let fixture = Fixture()
        let store = try fixture.addStore()
        var metadata = fixture.coordinator.metadata(for: store)
        metadata["Custom"] = "value"
        try fixture.coordinator.setMetadata(metadata, for: store)
        #expect(fixture.coordinator.metadata(for: store)["Custom"] as? String == "value")
        #expect(fixture.coordinator.metadata(for: store).storeUUID == store.identifier)
    }
}

/// An in-memory-like store whose commit or prepare fails on demand, to test saves that touch several stores.
final class FlakyStore: AtomicStore, @unchecked Sendable {  // used only under its coordinator's lock
    override class var storeType: PersistentStoreType { "Flaky" }
    override var writesFiles: Bool { false }
    static var failure: Failure {
        get { failures.withLock { $0 } }
        set { failures.withLock { $0 = newValue } }
    }
    private static let failures = LockedValue(Failure.none)

    enum Failure: Sendable { case none, prepare, commit }

    struct FailingCommit: PreparedSave {
        func commit() throws { throw StoreError(code: .io, message: "the disk went away") }
        func abort() {}
    }

    override func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        switch Self.failure {
        case .none: return ImmediateSave()
        case .prepare: throw StoreError(code: .io, message: "no space left")
        case .commit: return FailingCommit()
        }
    }
}

@Suite("Saves across stores", .serialized)
struct MultiStoreSaveTests {
    init() {
        PersistentStoreCoordinator.registerStoreClass(FlakyStore.self, forStoreType: "Flaky")
    }

    func setUp() throws -> (Fixture, PersistentStore, PersistentStore, ManagedObjectContext) {
        let fixture = Fixture()
        let first = try fixture.addStore("first", configuration: "Schedule")
        let flaky = try fixture.coordinator.addPersistentStore(type: "Flaky", configurationName: "Personal",
                                                               at: fixture.folder.file("flaky"))
        let context = fixture.context()
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Saal 1", forKey: "name")
        let favorite = context.insertNewObject(forEntityName: "Favorite")
        favorite.setValue("g1", forKey: "sessionGUID")
        return (fixture, first, flaky, context)
    }

    @Test func aStoreFailingToPrepareLeavesEveryStoreUnchanged() throws {
        FlakyStore.failure = .prepare
        defer { FlakyStore.failure = .none }
        let (fixture, _, _, context) = try setUp()
        #expect(throws: StoreError(code: .io, message: "")) { try context.save() }
        #expect(context.hasChanges)
        let reader = fixture.context()
        #expect(try reader.count(for: FetchRequest(entityName: "Room")) == 0)
        #expect(try reader.count(for: FetchRequest(entityName: "Favorite")) == 0)
    }

    @Test func aCommitFailingAfterAnotherStoreCommittedIsAPartialSave() throws {
        FlakyStore.failure = .commit
        defer { FlakyStore.failure = .none }
        let (fixture, first, _, context) = try setUp()
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .partialSave)
        #expect(error.message.contains(first.url!.path))
        let reader = fixture.context()
        #expect(try reader.count(for: FetchRequest(entityName: "Room")) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "Favorite")) == 0)
    }

    @Test func objectIDsAreEqualOnlyWithTheSameEntityStoreAndKey() {
        let id = ManagedObjectID(entityName: "Session", storeIdentifier: "A", referenceKey: 7)
        let same = ManagedObjectID(entityName: "Session", storeIdentifier: "A", referenceKey: 7)
        #expect(id == same && id.hashValue == same.hashValue)
        #expect(id != ManagedObjectID(entityName: "Session", storeIdentifier: "B", referenceKey: 7))
        #expect(id != ManagedObjectID(entityName: "Room", storeIdentifier: "A", referenceKey: 7))
        #expect(id != ManagedObjectID(entityName: "Session", storeIdentifier: "A", referenceKey: 8))
        // The same keys in many stores and entities stay apart as dictionary keys.
        var byID: [ManagedObjectID: Int] = [:]
        for store in 0..<50 {
            for entity in ["Session", "Room"] {
                for key in 1...20 {
                    let id = ManagedObjectID(entityName: entity, storeIdentifier: "S\(store)", referenceKey: Int64(key))
                    byID[id] = store * 1000 + key
                }
            }
        }
        #expect(byID.count == 2000)
        #expect(byID[ManagedObjectID(entityName: "Room", storeIdentifier: "S17", referenceKey: 3)] == 17_003)
    }

    @Test func newObjectsKeepTheirInsertionOrderAfterManyAreRemoved() throws {
        let fixture = Fixture()
        _ = try fixture.addStore()
        let context = fixture.context()
        let sessions = (0..<200).map { context.makeSession("g\($0)", title: "T\($0)") }
        // Deleting unsaved objects takes them out of the inserted list, leaving holes in its order.
        for (index, session) in sessions.enumerated() where index % 5 != 0 { context.delete(session) }
        #expect(context.insertedObjects.count == 40)
        try context.save()
        let kept = sessions.enumerated().filter { $0.offset % 5 == 0 }.map(\.element)
        let keys = kept.map(\.objectID.referenceKey)
        #expect(keys == keys.sorted() && Set(keys).count == 40)
        let reader = fixture.context()
        #expect(try reader.count(for: FetchRequest(entityName: "Session")) == 40)
    }
}
