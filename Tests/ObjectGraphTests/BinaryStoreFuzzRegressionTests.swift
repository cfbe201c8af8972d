import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Files found by the binary store fuzzer (`scripts/fuzz.sh binary-store`), and the checks they led to, kept as
/// tests. The files are written with the format's own encoder, so each names exactly the entities and values it
/// needs; their metadata carries `TestModel`'s version hashes, so they open without `.ignoresModelVersion`, as a
/// damaged file in the daemon's folder does.
@Suite("Binary store fuzz regressions")
struct BinaryStoreFuzzRegressionTests {
    let folder = TemporaryFolder()

    /// Writes `records` as a binary store; the entity table comes from `tableModel` and the records.
    func write(_ records: [StoreRecord], tableModel: ManagedObjectModel = TestModel.make()) throws -> URL {
        let url = folder.file("store.bin")
        var metadata = StoreMetadata()
        metadata.storeUUID = UUID().uuidString
        metadata.storeType = PersistentStoreType.binary.rawValue
        metadata.modelVersionHashes =
            PersistentStoreCoordinator(managedObjectModel: TestModel.make()).managedObjectModel
            .entityVersionHashesByName
        let data = try BinaryStoreFormat.encode(records: records, metadata: metadata, nextKey: 100, model: tableModel,
                                                url: url)
        try data.write(to: url)
        return url
    }

    func id(_ entity: String, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entity, storeIdentifier: "S", referenceKey: key)
    }

    func session(_ key: Int64, _ values: [String: any Sendable] = [:]) -> StoreRecord {
        StoreRecord(objectID: id("Session", key), values: ["guid": "g\(key)", "title": "t"].merging(values) { $1 })
    }

    /// Opens the file with `TestModel`; returns the error, or `nil` when the store was added.
    func openingError(_ url: URL, configuration: String? = nil, options: PersistentStoreOptions = [:]) -> StoreError? {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        do {
            try coordinator.addPersistentStore(type: .binary, configurationName: configuration, at: url,
                                               options: options)
            return nil
        } catch {
            return error as? StoreError ?? StoreError(code: .io, message: "not a StoreError: \(error)")
        }
    }

    /// The fuzzer's first find: an entity renamed in the file's table (`Conference` → `nrCfoeence`) loaded its
    /// objects under a name the model lacks, and the first fetch of an object related to one trapped in
    /// `ManagedObjectContext.object(with:)`.
    @Test func objectsOfAnEntityTheModelLacksAreRefused() throws {
        let url = try write([
            StoreRecord(objectID: id("Ghost", 1), values: ["name": "boo"]),
            session(2, ["room": id("Ghost", 1)]),
        ])
        #expect(openingError(url)?.code == .incompatibleModel)
        #expect(openingError(url, options: [.ignoresModelVersion: true])?.code == .incompatibleModel)
    }

    @Test func objectsOfAnEntityOutsideTheConfigurationAreRefused() throws {
        let url = try write([StoreRecord(objectID: id("Room", 1), values: ["name": "A"])])
        #expect(openingError(url, configuration: "Personal", options: [.ignoresModelVersion: true])?.code
            == .incompatibleModel)
        #expect(openingError(url, configuration: "Schedule") == nil)
    }

    @Test func relationshipsToObjectsOfAnotherEntityAreRefused() throws {
        let track = StoreRecord(objectID: id("Track", 1), values: ["name": "T"])
        let url = try write([track, session(2, ["room": id("Track", 1)])])
        #expect(openingError(url)?.code == .corruptFile)
        let list = try write([track, session(2, ["persons": [id("Track", 1)]])])
        #expect(openingError(list)?.code == .corruptFile)
    }

    @Test func relationshipsOfTheWrongShapeAreRefused() throws {
        let person = StoreRecord(objectID: id("Person", 1), values: ["name": "P"])
        let url = try write([person, session(2, ["persons": id("Person", 1)])])
        #expect(openingError(url)?.code == .corruptFile)
        let list = try write([person, session(2, ["room": "Room 1"])])
        #expect(openingError(list)?.code == .corruptFile)
    }

    @Test func objectsOfSubEntitiesAreValidDestinations() throws {
        let workshop = StoreRecord(objectID: id("Workshop", 1), values: ["guid": "w", "title": "W"])
        let person = StoreRecord(objectID: id("Person", 2), values: ["name": "P", "sessions": [id("Workshop", 1)]])
        #expect(openingError(try write([workshop, person])) == nil)
    }

    @Test(arguments: [
        ("title", 42 as any Sendable), ("start", "yesterday"), ("duration", "30"), ("duration", 2.5),
        ("duration", Int(Int32.max) + 1),
    ] as [(String, any Sendable)])
    func attributeValuesOfAnotherTypeAreRefused(key: String, value: any Sendable) throws {
        let url = try write([session(1, [key: value])])
        #expect(openingError(url)?.code == .corruptFile)
    }

    @Test func attributeValuesThatConvertWithoutLossAreRead() throws {
        let url = try write([session(1, ["duration": 30.0])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let session = try #require(try context.fetch(FetchRequest(entityName: "Session")).first)
        #expect(session.value(forKey: "duration") as? Int == 30)
    }

    @Test func valuesOfPropertiesTheModelLacksAreRefusedOrSkipped() throws {
        let wider = TestModel.make()
        wider.entitiesByName["Session"]!.properties.append(AttributeDescription(name: "ghost", type: .string))
        let url = try write([session(1, ["ghost": "boo"])], tableModel: wider)
        #expect(openingError(url)?.code == .incompatibleModel)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: .binary, at: url, options: [.ignoresModelVersion: true])
        let record = try #require(try ManagedObjectContext(coordinator: coordinator)
            .fetchRecords(FetchRequest(entityName: "Session")).first)
        #expect(record.values["ghost"] == nil)
        #expect(record.values["title"] as? String == "t")
    }

    /// A file made byte by byte: a header with only a store UUID, one entity `Room` (properties `name`, `sessions`)
    /// and one object whose bytes follow.
    func handMadeFile(object: [UInt8]) throws -> URL {
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        var bytes = Array("OGBSTORE".utf8) + [1, 0, 0, 0]
        bytes += [15, 1] + string(StoreMetadata.storeUUIDKey) + [5] + string(UUID().uuidString)
        bytes += [0, 1] + string("Room") + [2] + string("name") + string("sessions")
        bytes += [1] + object
        let checksum = bytes.withUnsafeBytes { FNV1a.hash($0) }
        bytes += withUnsafeBytes(of: checksum.littleEndian) { Array($0) }
        let url = folder.file("hand-made.bin")
        try Data(bytes).write(to: url)
        return url
    }

    /// The fuzzer's second find: an index (of an entity or a property) written as a varint above `Int.max` trapped
    /// converting it to `Int` ("Not enough bits to represent the passed value") before the bounds check.
    @Test(arguments: [
        [0, 2, 2, 1, 0, 5, 1, 65] as [UInt8],  // the valid object: entity 0, key 1, version 1, name "A"
        [255, 255, 255, 255, 255, 255, 255, 255, 255, 1, 2, 2, 0],  // the object's entity index
        [0, 2, 2, 1, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1, 5, 1, 65],  // a value's property index
        [0, 2, 2, 1, 1, 13, 1, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1, 2],  // an object ID's entity index
    ])
    func indicesBeyondIntAreRefused(object: [UInt8]) throws {
        let url = try handMadeFile(object: object)
        let error = openingError(url, options: [.ignoresModelVersion: true])
        if object.count == 8 {
            #expect(error == nil)
        } else {
            #expect(error?.code == .corruptFile)
        }
    }

    /// The fuzzer's third find, a leak: opening an empty file (refused as a foreign file) left the 4 KiB buffer that
    /// Foundation's `Data(contentsOf:)` reads an empty file into on Linux. 10,000 opens leaked 40 MB.
    @Test(.enabled(if: ResidentMemory.bytes > 0)) func emptyFilesLeaveNoMemoryBehind() throws {
        let url = folder.file("empty.bin")
        try Data().write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let growth = ResidentMemory.growth(below: 20_000_000) {
            for _ in 0..<10_000 {
                _ = try? coordinator.addPersistentStore(type: .binary, at: url, options: [.readOnly: true])
            }
        }
        #expect(growth < 20_000_000, "resident memory grew by \(growth) bytes")
        #expect(openingError(url)?.code == .foreignFile)
    }
}

