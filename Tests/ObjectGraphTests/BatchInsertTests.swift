import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

/// `BatchInsertRequest`: objects written straight into a store, converted and validated, all or none.
@Suite("Batch insert")
struct BatchInsertTests {
    private static let start = Date(timeIntervalSinceReferenceDate: 600_000_000)

    private static func sessionCount(_ fixture: Fixture) throws -> Int {
        try fixture.context().count(for: FetchRequest(entityName: "Session"))
    }

    @Test(arguments: StoreKind.all)
    func insertsObjectsThatOtherContextsFetch(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let context = fixture.context()
        let request = BatchInsertRequest(entityName: "Session", objects: [
            ["guid": "g1", "title": "Keynote", "start": Self.start],
            ["guid": "g2", "title": "Lunch", "duration": 60],
            ["guid": "g3", "title": "Close", "code": "ABC-1"],
        ])
        request.resultType = .objectIDs
        let result = try context.execute(request)
        #expect(result.count == 3)
        let ids = try #require(result.objectIDs)
        #expect(ids.count == 3 && Set(ids).count == 3)
        #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entityName == "Session" })
        #expect(!context.hasChanges)

        let reader = fixture.context()
        let objects = try ids.map { try reader.existingObject(with: $0) }
        #expect(objects.map { $0.value(forKey: "guid") as? String } == ["g1", "g2", "g3"])
        #expect(objects[0].value(forKey: "start") as? Date == Self.start)
        #expect(objects[0].value(forKey: "code") == nil)
        // Left out: the attribute's default. Given: the given value.
        #expect(objects[0].value(forKey: "duration") as? Int == 30)
        #expect(objects[1].value(forKey: "duration") as? Int == 60)
        #expect(objects[2].value(forKey: "code") as? String == "ABC-1")

        // Objects saved through a context afterwards get keys of their own.
        let writer = fixture.context()
        let session = writer.makeSession("g4")
        try writer.save()
        #expect(!ids.contains(session.objectID))
        #expect(try Self.sessionCount(fixture) == 4)
    }

    @Test func theDictionaryHandlerIsCalledUntilItReturnsTrue() throws {
        let fixture = Fixture()
        try fixture.addStore()
        var calls = 0
        var handedNonEmpty = false
        let request = BatchInsertRequest(entityName: "Favorite") { values in
            if !values.isEmpty { handedNonEmpty = true }
            calls += 1
            guard calls <= 5 else { return true }
            values["sessionGUID"] = "g\(calls)"
            return false
        }
        let result = try fixture.coordinator.execute(request)
        #expect(result.count == 5)
        #expect(result.objectIDs == nil)
        #expect(calls == 6)
        #expect(!handedNonEmpty)
        let guids = try fixture.context().all("Favorite", sortedBy: "sessionGUID").compactMap {
            $0.value(forKey: "sessionGUID") as? String
        }
        #expect(guids == ["g1", "g2", "g3", "g4", "g5"])
    }

    @Test func valuesAreConvertedToTheAttributesTypes() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let request = BatchInsertRequest(entityName: "Workshop", objects: [
            ["guid": "w1", "title": Substring("Hands on"), "duration": Int32(90), "capacity": 25.0],
        ])
        request.resultType = .objectIDs
        let id = try #require(try fixture.coordinator.execute(request).objectIDs?.first)
        let workshop = try fixture.context().existingObject(with: id)
        #expect(workshop.entity.name == "Workshop")
        #expect(workshop.value(forKey: "title") as? String == "Hands on")
        #expect(workshop.value(forKey: "duration") as? Int == 90)
        #expect(workshop.value(forKey: "capacity") as? Int == 25)
    }

    @Test func anEmptyBatchInsertsNothing() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let request = BatchInsertRequest(entityName: "Session", objects: [])
        request.resultType = .objectIDs
        let result = try fixture.coordinator.execute(request)
        #expect(result.count == 0 && result.objectIDs == [])
    }

    // MARK: Failures: a clear error, and nothing written

    @Test(arguments: StoreKind.all)
    func oneBadObjectFailsTheWholeBatch(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        let request = BatchInsertRequest(entityName: "Session", objects: [
            ["guid": "g1", "title": "Fine"],
            ["guid": "g2", "title": 42],
        ])
        let error = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(request) }
        #expect(error.code == .wrongType)
        #expect(error.context.key == "title")
        #expect(error.message.hasPrefix("Object 1 of the batch: "))
        #expect(try Self.sessionCount(fixture) == 0)
    }

    @Test func theModelsRulesApply() throws {
        let fixture = Fixture()
        try fixture.addStore()
        func failure(_ values: [String: any Sendable], entity: String = "Session") throws -> ValidationError {
            try #require(throws: ValidationError.self) {
                try fixture.coordinator.execute(BatchInsertRequest(entityName: entity, objects: [values]))
            }
        }
        #expect(try failure(["title": "No guid"]).code == .missingMandatoryProperty)
        #expect(try failure(["guid": "g1", "title": "T", "code": "bad"]).code == .stringPatternMismatch)
        #expect(try failure(["guid": "g1", "title": "T", "duration": -5]).code == .numberTooSmall)
        #expect(try failure(["guid": "g1", "title": String(repeating: "x", count: 201)]).code == .stringTooLong)
        #expect(try failure(["guid": "w1", "title": "T", "capacity": 70_000], entity: "Workshop").code == .wrongType)
        // Run's processID defaults to -1, below its minimum of 0: a default must pass the rules too.
        let run = try failure(["date": Self.start], entity: "Run")
        #expect(run.code == .numberTooSmall)
        #expect(run.message.contains("Process ID"))  // the model's localized name
        #expect(try Self.sessionCount(fixture) == 0)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Run")) == 0)
    }

    @Test func everyFailureIsListedUpToALimit() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let two = BatchInsertRequest(entityName: "Session", objects: [["guid": "g1"], ["title": "T"]])
        let error = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(two) }
        #expect(error.code == .multipleErrors)
        #expect(error.allErrors.map(\.code) == [.missingMandatoryProperty, .missingMandatoryProperty])
        #expect(error.allErrors.map(\.context.key) == ["title", "guid"])
        #expect(error.allErrors[1].message.hasPrefix("Object 1 of the batch: "))

        let many = BatchInsertRequest(entityName: "Session", objects: Array(repeating: ["guid": "g"], count: 150))
        let limited = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(many) }
        #expect(limited.allErrors.count == 100)

        // Once the batch is sure to fail, the handler is not asked for more.
        var calls = 0
        let endless = BatchInsertRequest(entityName: "Session") { values in
            calls += 1
            values["guid"] = "g"
            return false
        }
        #expect(throws: ValidationError.self) { try fixture.coordinator.execute(endless) }
        #expect(calls == 100)
        #expect(try Self.sessionCount(fixture) == 0)
    }

    @Test func keysThatAreNotStoredAttributesAreRefused() throws {
        let fixture = Fixture()
        try fixture.addStore()
        for key in ["nonsense", "scratch"] {  // no such property; a transient attribute
            let request = BatchInsertRequest(entityName: "Session", objects: [["guid": "g1", "title": "T", key: "x"]])
            let error = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(request) }
            #expect(error.code == .unknownKey)
            #expect(error.context.key == key)
        }
        let relationship = BatchInsertRequest(entityName: "Session", objects: [["guid": "g1", "title": "T",
                                                                                "room": "Hall A"]])
        let error = try #require(throws: StoreError.self) { try fixture.coordinator.execute(relationship) }
        #expect(error.code == .unsupportedRequest)
        #expect(error.message.contains("relationship 'room'"))
        #expect(try Self.sessionCount(fixture) == 0)
    }

    @Test func unknownAndAbstractEntitiesAreRefused() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let unknown = BatchInsertRequest(entityName: "Nope", objects: [[:]])
        #expect(throws: ModelError.self) { try fixture.coordinator.execute(unknown) }

        let base = EntityDescription(name: "Base", properties: [AttributeDescription(name: "name", type: .string)])
        base.isAbstract = true
        let leaf = EntityDescription(name: "Leaf", properties: [])
        base.subentities = [leaf]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [base, leaf]))
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let abstract = BatchInsertRequest(entityName: "Base", objects: [["name": "x"]])
        let error = try #require(throws: StoreError.self) { try coordinator.execute(abstract) }
        #expect(error.code == .unsupportedRequest)
        #expect(try coordinator.execute(BatchInsertRequest(entityName: "Leaf", objects: [["name": "x"]])).count == 1)
    }

    @Test func aRequiredRelationshipFailsEveryObject() throws {
        let owner = EntityDescription(name: "Owner", properties: [
            RelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", toMany: true),
        ])
        let pet = EntityDescription(name: "Pet", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "owner", destination: "Owner", inverse: "pets", isOptional: false),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [owner, pet]))
        _ = try coordinator.addPersistentStore(type: .inMemory)
        let error = try #require(throws: ValidationError.self) {
            try coordinator.execute(BatchInsertRequest(entityName: "Pet", objects: [["name": "Rex"]]))
        }
        #expect(error.code == .missingMandatoryProperty)
        #expect(error.context.key == "owner")
    }

    // MARK: The managed object handler

    @Test(arguments: StoreKind.all)
    func theManagedObjectHandlerSetsEachObjectOnAnInstanceOfTheEntitysClass(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        var handed: [ObjectIdentifier] = []
        var startedAtDefaults = true
        var inAContext = false
        let request = BatchInsertRequest(entityName: "Run", managedObjectHandler: { object in
            guard let run = object as? Run else { return true }
            handed.append(ObjectIdentifier(run))
            // Each call starts from the defaults, whatever the previous one set.
            if run.processID != -1 || run.date != nil { startedAtDefaults = false }
            if run.managedObjectContext != nil { inAContext = true }
            guard handed.count <= 3 else { return true }
            run.date = Self.start.addingTimeInterval(Double(handed.count))
            run.setValue(Int32(100 + handed.count), forKey: "processID")  // converted as setValue converts
            return false
        })
        request.resultType = .objectIDs
        let ids = try #require(try fixture.context().execute(request).objectIDs)
        #expect(ids.count == 3)
        #expect(handed.count == 4 && Set(handed).count == 1)
        #expect(startedAtDefaults && !inAContext)

        let runs = try fixture.context().all("Run", sortedBy: "date").compactMap { $0 as? Run }
        #expect(runs.map(\.processID) == [101, 102, 103])
        #expect(runs.map(\.objectID) == ids)
        #expect(runs.first?.date == Self.start.addingTimeInterval(1))
    }

    @Test(arguments: StoreKind.all)
    func aManagedObjectHandlersBadObjectFailsTheWholeBatch(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        try fixture.addStore()
        var calls = 0
        let request = BatchInsertRequest(entityName: "Run") { run in
            calls += 1
            guard calls <= 3 else { return true }
            run.setValue(Self.start, forKey: "date")
            // The second object keeps processID's default, -1, below its minimum.
            if calls != 2 { run.setValue(7, forKey: "processID") }
            return false
        }
        let error = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(request) }
        #expect(error.code == .numberTooSmall)
        #expect(error.context.key == "processID")
        #expect(error.message.hasPrefix("Object 1 of the batch: "))
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Run")) == 0)

        // Once the batch is sure to fail, the handler is not asked for more.
        var endlessCalls = 0
        let endless = BatchInsertRequest(entityName: "Run", managedObjectHandler: { _ in
            endlessCalls += 1
            return false
        })
        let limited = try #require(throws: ValidationError.self) { try fixture.coordinator.execute(endless) }
        #expect(endlessCalls == 50)  // each object fails twice: no date, and processID's default
        #expect(limited.allErrors.count == 100)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Run")) == 0)
    }

    @Test func aManagedObjectHandlerCannotSetRelationships() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let room = ManagedObject(entity: fixture.model.entitiesByName["Room"]!, insertInto: nil)
        var calls = 0
        let request = BatchInsertRequest(entityName: "Session") { session in
            calls += 1
            session.setValue("g\(calls)", forKey: "guid")
            session.setValue("T", forKey: "title")
            if calls == 2 { session.setValue(room, forKey: "room") }
            return calls == 3
        }
        let error = try #require(throws: StoreError.self) { try fixture.coordinator.execute(request) }
        #expect(error.code == .unsupportedRequest)
        #expect(error.message.contains("Object 1 of the batch sets relationship 'room'"))
        #expect(calls == 2)
        #expect(try Self.sessionCount(fixture) == 0)
    }

    // MARK: Stores

    @Test func objectsGoToTheStoreWhoseConfigurationHoldsTheEntity() throws {
        let fixture = Fixture(.sqlite)
        let schedule = try fixture.addStore("schedule", configuration: "Schedule")
        let personal = try fixture.addStore("personal", configuration: "Personal")
        let favorites = BatchInsertRequest(entityName: "Favorite", objects: [["sessionGUID": "g1"]])
        favorites.resultType = .objectIDs
        let id = try #require(try fixture.coordinator.execute(favorites).objectIDs?.first)
        #expect(id.storeIdentifier == personal.identifier)

        let sessions = BatchInsertRequest(entityName: "Session", objects: [["guid": "g1", "title": "T"]])
        sessions.resultType = .objectIDs
        sessions.affectedStores = [personal]
        #expect(try fixture.coordinator.execute(sessions).objectIDs?.first?.storeIdentifier == personal.identifier)
        sessions.affectedStores = [schedule]
        #expect(try fixture.coordinator.execute(sessions).objectIDs?.first?.storeIdentifier == schedule.identifier)

        favorites.affectedStores = [schedule]  // its configuration does not hold Favorite
        let error = try #require(throws: StoreError.self) { try fixture.coordinator.execute(favorites) }
        #expect(error.code == .noStoreForEntity)
        #expect(try fixture.context().count(for: FetchRequest(entityName: "Favorite")) == 1)
    }

    @Test func aReadOnlyStoreIsNotWritten() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        _ = try fixture.context().execute(BatchInsertRequest(entityName: "Note", objects: [["text": "kept"]]))
        try fixture.coordinator.remove(store)
        let readOnly = try fixture.addStore(options: [.readOnly: true])
        let request = BatchInsertRequest(entityName: "Note", objects: [["text": "new"]])
        #expect(throws: StoreError.self) { try fixture.coordinator.execute(request) }
        request.affectedStores = [readOnly]
        let error = try #require(throws: StoreError.self) { try fixture.coordinator.execute(request) }
        #expect(error.code == .noStoreForEntity)
        let texts = try fixture.context().all("Note").compactMap { $0.value(forKey: "text") as? String }
        #expect(texts == ["kept"])
    }

    // MARK: Contexts and observers

    @Test func aContextsUnsavedChangesStayUnsaved() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let context = fixture.context()
        let pending = context.makeSession("pending")
        _ = try context.execute(BatchInsertRequest(entityName: "Session", objects: [["guid": "g1", "title": "T"]]))
        #expect(context.hasChanges && pending.isInserted)
        #expect(try Self.sessionCount(fixture) == 1)
        try context.save()
        #expect(try Self.sessionCount(fixture) == 2)
    }

    @Test func saveObserversHearOfTheNewObjects() throws {
        let fixture = Fixture()
        try fixture.addStore()
        let heard = LockedEvents()
        fixture.coordinator.addSaveObserver { heard.append($0) }
        let request = BatchInsertRequest(entityName: "Note", objects: [["text": "a"], ["text": "b"]])
        request.resultType = .objectIDs
        let ids = try #require(try fixture.coordinator.execute(request).objectIDs)
        #expect(heard.events.map(\.insertedObjectIDs) == [Set(ids)])

        // A failed batch tells no one.
        _ = try? fixture.coordinator.execute(BatchInsertRequest(entityName: "Note", objects: [["text": 1]]))
        #expect(heard.events.count == 1)
    }
}

/// Save events collected from any thread.
private final class LockedEvents: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var stored: [ContextDidSave] = []

    func append(_ event: ContextDidSave) { lock.withLock { stored.append(event) } }
    var events: [ContextDidSave] { lock.withLock { stored } }
}
