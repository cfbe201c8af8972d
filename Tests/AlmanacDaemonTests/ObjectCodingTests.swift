import AlmanacWire
import Foundation
import ObjectGraph
import Testing
@testable import AlmanacDaemon

/// Fetch replies are encoded from store records when no properties are named; they must equal the encoding of the
/// managed objects, for every entity and store kind.
@Suite("Object coding")
struct ObjectCodingTests {
    @Test func recordsEncodeExactlyAsManagedObjects() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CoreFixture.samples.path).sorted()
        let fixture = try CoreFixture(files: files)
        // A personal session and a favourite, in the SQLite personal store.
        _ = try fixture.request("insert", ["entity": "Session", "values": [
            "guid": "mine-1", "title": "My own session", "start": "2026-11-24T09:00:00Z",
        ]])
        _ = try fixture.request("insert", ["entity": "Favorite", "values": [
            "conferenceAcronym": "x", "sessionGUID": "mine-1",
        ]])
        let coordinator = fixture.core.engine.library.coordinator
        let coding = ObjectCoding(coordinator: coordinator)
        var compared = 0
        for entity in coordinator.managedObjectModel.entities where !entity.isAbstract {
            let request = FetchRequest(entityName: entity.name)
            request.sortKeys = [SortKey("guid")].filter { _ in entity.attributesByName["guid"] != nil }
            let context = ManagedObjectContext(coordinator: coordinator)
            let objects = try context.fetch(request)
            let records = try context.fetchRecords(request)
            #expect(objects.map(\.objectID) == records.map(\.objectID), "\(entity.name)")
            for (object, record) in zip(objects, records) {
                let viaObject = coding.wireObject(object, properties: nil)
                let viaRecord = coding.wireObject(record, entity: object.entity)
                #expect(viaObject.json == viaRecord.json, "\(entity.name) \(object.objectID)")
                compared += 1
            }
        }
        #expect(compared > 100)
    }

    @Test func namedPropertiesAndKeyPathsEncodeExactlyAsManagedObjects() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CoreFixture.samples.path).sorted()
        let fixture = try CoreFixture(files: files)
        _ = try fixture.request("insert", ["entity": "Session", "values": [
            "guid": "mine-2", "title": "Mine, without a room", "start": "2026-11-24T09:00:00Z",
        ]])
        let coordinator = fixture.core.engine.library.coordinator
        let coding = ObjectCoding(coordinator: coordinator)
        let session = try #require(coordinator.managedObjectModel.entitiesByName["Session"])
        let propertySets = [
            ["title", "room.name", "track.name", "conference.acronym"], ["room", "start", "day.date", "duration"],
            ["conference.title", "day.conference.acronym", "status", "abstract"],
        ]
        for properties in propertySets {
            #expect(coding.readsFromRecords(properties, of: session))
            let request = FetchRequest(entityName: "Session")
            request.sortKeys = [SortKey("guid")]
            let context = ManagedObjectContext(coordinator: coordinator)
            let objects = try context.fetch(request)
            let records = try context.fetchRecords(request)
            #expect(objects.count > 40)
            for (object, record) in zip(objects, records) {
                let viaObject = coding.wireObject(object, properties: properties)
                let viaRecord = try coding.wireObject(record, entity: object.entity, properties: properties) {
                    try context.storedRecord(for: $0)
                }
                #expect(viaObject.json == viaRecord.json, "\(properties) \(object.objectID)")
            }
        }
        // To-many relationships, operators and unknown keys go through managed objects.
        #expect(!coding.readsFromRecords(["persons"], of: session))
        #expect(!coding.readsFromRecords(["persons.name"], of: session))
        #expect(!coding.readsFromRecords(["persons.@count"], of: session))
        #expect(!coding.readsFromRecords(["room.nonsense"], of: session))
        #expect(!coding.readsFromRecords(["title.length"], of: session))
    }

    @Test func fetchRepliesKeepTheirShapeWithAndWithoutProperties() throws {
        let fixture = try CoreFixture()
        let plain = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]], "limit": 3])
        let named = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]], "limit": 3,
                                                  "properties": ["title", "room.name"]])
        let plainObjects = plain["objects"]?.arrayValue ?? []
        let namedObjects = named["objects"]?.arrayValue ?? []
        #expect(plainObjects.count == 3)
        #expect(plainObjects.map { $0.objectValue?["uri"] } == namedObjects.map { $0.objectValue?["uri"] })
        #expect(plain["total"] == named["total"])
        let values = plainObjects.first?.objectValue?["values"]?.objectValue ?? [:]
        #expect(values["title"] != nil)
        #expect(values["room"]?.stringValue?.hasPrefix("x-coredata://") == true)
    }
}

@Suite("Wire object cache")
struct WireObjectCacheTests {
    func store(_ coordinator: PersistentStoreCoordinator) throws -> PersistentStore {
        try coordinator.addPersistentStore(type: .inMemory)
    }

    @Test func entriesFollowVersionsAndStoreIdentity() throws {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "name", type: .string),
        ])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let first = try store(coordinator)
        let id = first.objectID(forEntityName: "Thing", referenceKey: 1)
        let cache = WireObjectCache()
        var made = 0
        // `store` serves the record's store identifier (a replaced file keeps its UUID).
        func value(_ record: StoreRecord, in store: PersistentStore) -> String {
            cache.values(for: [record], stores: { $0 == first.identifier ? store : nil }) { record in
                made += 1
                return thing(record, named: record.values["name"] as? String ?? "")
            }[0].values["name"]?.stringValue ?? ""
        }
        #expect(value(StoreRecord(objectID: id, version: 1, values: ["name": "one"]), in: first) == "one")
        #expect(value(StoreRecord(objectID: id, version: 1, values: ["name": "one"]), in: first) == "one")
        #expect(made == 1)
        // A saved change bumps the version: encoded again.
        #expect(value(StoreRecord(objectID: id, version: 2, values: ["name": "two"]), in: first) == "two")
        #expect(made == 2)
        // Another store object with the same identifier (a replaced file keeps its UUID): never the old entry.
        let second = try store(coordinator)
        #expect(value(StoreRecord(objectID: id, version: 2, values: ["name": "other"]), in: second) == "other")
        #expect(made == 3)
        #expect(cache.count == 2)  // one entry for each store object
    }

    @Test func entriesOfDetachedStoresAreDropped() throws {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "name", type: .string),
        ])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let (kept, detached) = (try store(coordinator), try store(coordinator))
        let cache = WireObjectCache()
        for store in [kept, detached] {
            let records = (1...3).map {
                StoreRecord(objectID: store.objectID(forEntityName: "Thing", referenceKey: $0))
            }
            _ = cache.values(for: records, stores: { _ in store }) { thing($0, named: "") }
        }
        #expect(cache.count == 6)
        try coordinator.remove(detached)
        cache.removeEntries(ofStoresOtherThan: coordinator.persistentStores)
        #expect(cache.count == 3)
    }

    /// Under churn in the watched folder every replaced file's store left its encoded objects behind until the
    /// cache held 200,000 objects: resident memory grew by ~20 MiB a minute in scripts/load-with-churn.sh.
    @Test func aReplacedFilesEntriesAreDroppedAtTheNextFetch() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        _ = try fixture.request("fetch", ["entity": "Session"])
        let cached = fixture.core.engine.wireObjects.count
        #expect(cached > 0)
        let file = fixture.inbox.appendingPathComponent("swift-server-days-2026.xml")
        for _ in 1...3 {
            #expect(fixture.core.library.attach(file) == .replaced)
            _ = try fixture.request("fetch", ["entity": "Session"])
        }
        #expect(fixture.core.engine.wireObjects.count == cached)
    }

    @Test func theCacheStartsOverWhenFull() throws {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "name", type: .string),
        ])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try store(coordinator)
        let cache = WireObjectCache(limit: 10)
        let records = (1...25).map { StoreRecord(objectID: store.objectID(forEntityName: "Thing", referenceKey: Int64($0))) }
        let values = cache.values(for: records, stores: { _ in store }) { record in
            thing(record, named: "\(record.objectID.referenceKey)")
        }
        #expect(values.map { $0.values["name"] } == (1...25).map { .string("\($0)") })
        #expect(cache.count <= 10)
    }
}

/// A wire object for a cache test, named so the test can tell which record made it.
private func thing(_ record: StoreRecord, named name: String) -> WireObject {
    let store = record.objectID.storeIdentifier ?? ""
    return WireObject(uri: record.objectID.uriString, entity: "Thing", store: store, values: ["name": .string(name)])
}

@Suite("Object coding: composite attributes")
struct CompositeObjectCodingTests {
    static func coordinator() throws -> PersistentStoreCoordinator {
        let magnitude = CompositeAttributeDescription(
            name: "magnitude",
            elements: [
                AttributeDescription(name: "richter", type: .double),
                AttributeDescription(name: "recordedAt", type: .date),
            ])
        let model = ManagedObjectModel(entities: [
            EntityDescription(
                name: "Quake", properties: [AttributeDescription(name: "code", type: .string), magnitude])
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory)
        return coordinator
    }

    /// Out: a JSON object of the elements (dates as the wire writes them); in: such an object, each element
    /// converted as its own attribute, and an unknown element refused with nothing set.
    @Test func aCompositeIsAnObjectOfItsElementsBothWays() throws {
        let coordinator = try Self.coordinator()
        let coding = ObjectCoding(coordinator: coordinator)
        let context = ManagedObjectContext(coordinator: coordinator)
        let quake = context.insertNewObject(forEntityName: "Quake")
        try coding.apply(
            ["code": "a", "magnitude": .object(["richter": 4, "recordedAt": "2026-11-24T09:00:00Z"])], to: quake,
            in: context)
        #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4)
        let recorded = WireDate.date(from: "2026-11-24T09:00:00Z")
        #expect(quake.value(forKeyPath: "magnitude.recordedAt") as? Date == recorded)
        let out = coding.wireObject(quake, properties: nil).values["magnitude"]
        #expect(out == .object(["recordedAt": .string("2026-11-24T09:00:00Z"), "richter": .double(4)]))

        let error = try #require(throws: WireError.self) {
            try coding.apply(["magnitude": .object(["richter": 5, "station": "ZUR"])], to: quake, in: context)
        }
        #expect(error.message.contains("no element 'station'"), "\(error.message)")
        #expect(quake.value(forKeyPath: "magnitude.richter") as? Double == 4)
    }
}
