import Foundation
import Testing

@testable import ObjectGraph

/// A record that keeps its values as a row reads and changes like one that keeps a dictionary.
@Suite("Store records")
struct StoreRecordTests {
    private static let id = ManagedObjectID(entityName: "Talk", storeIdentifier: "S", referenceKey: 1)

    private static func describe(_ values: [String: any Sendable]) -> [String: String] {
        values.mapValues { "\(type(of: $0)):\($0)" }
    }

    private static func rowRecord() -> StoreRecord {
        StoreRecord(objectID: id, version: 3, keys: RecordKeys(["title", "minutes", "room"]), row: ["Hi", 30, nil])
    }

    @Test func aRowReadsAsTheDictionaryOfItsNonNilValues() {
        let record = Self.rowRecord()
        #expect(Self.describe(record.values) == ["title": "String:Hi", "minutes": "Int:30"])
        #expect(record["title"] as? String == "Hi")
        #expect(record["room"] == nil)
        #expect(record["speaker"] == nil)
        #expect(record.version == 3)
        #expect(record.row?.values.count == 3)
    }

    @Test func changingARowKeepsItARowForItsKeysAndTurnsItIntoADictionaryForOthers() {
        var record = Self.rowRecord()
        let keys = try! #require(record.row?.keys)
        record["room"] = "B"
        record["minutes"] = nil
        #expect(record.row(laidOutBy: keys) != nil)
        #expect(Self.describe(record.values) == ["title": "String:Hi", "room": "String:B"])

        record["speaker"] = nil  // not one of the keys, and nothing to set: no change
        #expect(record.row != nil)
        record["speaker"] = "Ada"
        #expect(record.row == nil)
        #expect(Self.describe(record.values) == ["title": "String:Hi", "room": "String:B", "speaker": "String:Ada"])
    }

    @Test func settingValuesReplacesTheRow() {
        var record = Self.rowRecord()
        record.values = ["title": "Other"]
        #expect(record.row == nil)
        #expect(Self.describe(record.values) == ["title": "String:Other"])
        record.values["minutes"] = 5
        #expect(Self.describe(record.values) == ["title": "String:Other", "minutes": "Int:5"])
    }

    @Test func copiesOfARecordDoNotShareChanges() {
        let original = Self.rowRecord()
        var copy = original
        copy["title"] = "Changed"
        #expect(original["title"] as? String == "Hi")
        #expect(copy["title"] as? String == "Changed")
    }

    private static func transient(_ attribute: AttributeDescription) -> AttributeDescription {
        attribute.isTransient = true
        return attribute
    }

    @Test func aContextLaysOutTheRecordsItSavesByTheEntitysKeysAndReadsThemBack() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Talk", properties: [
                AttributeDescription(name: "title", type: .string),
                Self.transient(AttributeDescription(name: "scratch", type: .string)),
                RelationshipDescription(name: "room", destination: "Room", inverse: "talks"),
                AttributeDescription(name: "minutes", type: .integer64),
            ]),
            EntityDescription(name: "Room", properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "talks", destination: "Talk", inverse: "room", toMany: true),
            ]),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let room = ManagedObject(entity: model.entitiesByName["Room"]!, insertInto: context)
        room.setValue("B", forKey: "name")
        let talk = ManagedObject(entity: model.entitiesByName["Talk"]!, insertInto: context)
        talk.setValue("Hi", forKey: "title")
        talk.setValue("not saved", forKey: "scratch")
        talk.setValue(room, forKey: "room")
        try context.save()

        let record = try #require(try store.record(for: talk.objectID))
        let row = try #require(record.row)
        #expect(row.keys === model.entitiesByName["Talk"]!.recordKeys)
        #expect(row.keys.names == ["title", "minutes", "room"])  // attributes first, transient ones left out
        #expect(record["room"] as? ManagedObjectID == room.objectID)
        #expect(record["scratch"] == nil)

        let other = ManagedObjectContext(coordinator: coordinator)
        let fetched = try other.existingObject(with: talk.objectID)
        #expect(fetched.value(forKey: "title") as? String == "Hi")
        #expect(fetched.value(forKey: "minutes") == nil)
        #expect(fetched.value(forKey: "scratch") == nil)
        #expect((fetched.value(forKey: "room") as? ManagedObject)?.objectID == room.objectID)
    }
}
