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
