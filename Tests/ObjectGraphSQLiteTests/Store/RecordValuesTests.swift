import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Values come back from every read path as they were saved: zeros, empty values and nil kept apart.
@Suite("SQLite store: record values")
struct RecordValuesTests {
    private static func model() -> ManagedObjectModel {
        let types: [(String, AttributeType)] = [
            ("small", .integer16), ("medium", .integer32), ("large", .integer64), ("real", .double),
            ("single", .float), ("flag", .boolean), ("when", .date), ("text", .string), ("amount", .decimal),
            ("bytes", .binaryData), ("uuid", .uuid), ("link", .uri),
        ]
        return ManagedObjectModel(entities: [
            EntityDescription(name: "Value", properties: types.map { AttributeDescription(name: $0.0, type: $0.1) })
        ])
    }

    private static let rows: [[String: any Sendable]] = [
        [:],
        ["small": 0, "medium": 0, "large": 0, "real": 0.0, "single": Float(0), "flag": false,
         "when": Date(timeIntervalSinceReferenceDate: 0), "text": "", "amount": Decimal(0), "bytes": Data(),
         "uuid": UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "link": URL(string: "a:b")!],
        ["small": -7, "medium": 70_000, "large": Int.max, "real": -2.5, "single": Float(1.5), "flag": true,
         "when": Date(timeIntervalSinceReferenceDate: -86_400.25), "text": "Grüße, ümlaut", "amount": Decimal(12.75),
         "bytes": Data([0, 1, 2]), "uuid": UUID(), "link": URL(string: "https://example.org/x?y=1")!],
        ["large": 1, "text": "only two values, in a text too long for a string's own bytes"],
    ]

    private static func describe(_ values: [String: any Sendable]) -> [String: String] {
        values.mapValues { "\(type(of: $0)):\($0)" }
    }

    @Test func keyMatcherFindsNamesAndRefusesSharedSlots() throws {
        let matcher = try #require(KeyMatcher(["i1", nil, "i2", "date", "a much longer attribute name"]))
        #expect(matcher.position(of: "i1") == 0 && matcher.position(of: "i2") == 2 && matcher.position(of: "date") == 3)
        #expect(matcher.position(of: "a much longer attribute name") == 4)
        #expect(matcher.position(of: "i3") == nil && matcher.position(of: "") == nil && matcher.position(of: "d") == nil)
        // The same length and first, second and last bytes share a slot under every seed.
        #expect(KeyMatcher(["abxd", "abyd"]) == nil)
        #expect(KeyMatcher(["ok", ""]) == nil)
    }

    /// How the saved records keep their values.
    enum SavedLayout: CaseIterable {
        /// Dictionaries, written through the key matcher.
        case dictionaries
        /// Dictionaries whose attribute names share a slot, written through lookups.
        case dictionariesWithSharedSlots
        /// Rows laid out by the entity's keys (as a context's save makes them), written by position.
        case rows
    }

    @Test(arguments: SavedLayout.allCases)
    func fetchRecordAndBatchReadsReturnTheSavedValues(layout: SavedLayout) throws {
        let namesShareASlot = layout == .dictionariesWithSharedSlots
        SQLiteStore.register()
        let folder = TemporaryFolder()
        let model = Self.model()
        if namesShareASlot {
            model.entities[0].properties += [AttributeDescription(name: "abxd", type: .string),
                                             AttributeDescription(name: "abyd", type: .string)]
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("values.sqlite"))
        var rows = Self.rows
        if namesShareASlot { rows[2].merge(["abxd": "x", "abyd": "y"]) { $1 } }
        let keys = try store.newReferenceKeys(forEntityName: "Value", count: rows.count)
        var changes = StoreChanges()
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Value"])
        changes.inserted = zip(keys, rows).map { key, values in
            let id = store.objectID(forEntityName: "Value", referenceKey: key)
            guard layout == .rows else { return StoreRecord(objectID: id, values: values) }
            let row = entity.recordKeys.names.map { values[$0] }
            return StoreRecord(objectID: id, version: 1, keys: entity.recordKeys, row: row)
        }
        if layout == .rows { #expect(changes.inserted.allSatisfy { $0.row?.keys === entity.recordKeys }) }
        try store.prepareSave(changes).commit()
        let expected = changes.inserted.map { Self.describe($0.values) }

        let fetched = try store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Value"], predicate: nil,
                                                        sortKeys: [], limit: 0))
        #expect(fetched.map { $0.record.map { Self.describe($0.values) } } == expected)
        let single = try changes.inserted.map { try store.record(for: $0.objectID).map { Self.describe($0.values) } }
        #expect(single == expected)
        let batch = try store.records(for: changes.inserted.map(\.objectID).reversed())
        let byID = Dictionary(uniqueKeysWithValues: batch.map { ($0.objectID, Self.describe($0.values)) })
        #expect(changes.inserted.map { byID[$0.objectID] } == expected)
    }

    /// Saves `rows` into a new store and returns its file, the inserted IDs and the model.
    private static func savedStore(_ folder: TemporaryFolder) throws -> (URL, [ManagedObjectID]) {
        SQLiteStore.register()
        let url = folder.file("values.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let keys = try store.newReferenceKeys(forEntityName: "Value", count: rows.count)
        var changes = StoreChanges()
        changes.inserted = zip(keys, rows).map { key, values in
            StoreRecord(objectID: store.objectID(forEntityName: "Value", referenceKey: key), values: values)
        }
        try store.prepareSave(changes).commit()
        try coordinator.remove(store)
        return (url, changes.inserted.map(\.objectID))
    }

    /// A fetch of whole objects lays its records out by the entity's own keys (which a context applies by
    /// position); a fetch of some properties lays them out by those, and objects read either kind by name.
    @Test func wholeRecordsAreLaidOutByTheEntitysKeysAndPartialOnesByTheirOwn() throws {
        let folder = TemporaryFolder()
        let (url, ids) = try Self.savedStore(folder)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Value"])

        let whole = try store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Value"], predicate: nil,
                                                      sortKeys: [], limit: 0))
        #expect(whole.allSatisfy { $0.record?.row?.keys === entity.recordKeys })
        let partial = try store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Value"], predicate: nil,
                                                        sortKeys: [], limit: 0, propertiesToFetch: ["text", "large"]))
        let partialKeys = try #require(partial.first?.record?.row?.keys)
        #expect(partialKeys !== entity.recordKeys)
        #expect(Set(partialKeys.names) == ["text", "large"])
        #expect(partial.map { $0.record.map { Self.describe($0.values) } }
            == Self.rows.map { Self.describe($0.filter { ["text", "large"].contains($0.key) }) })

        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Value")
        request.propertiesToFetch = ["text", "large"]
        let objects = try context.fetch(request)
        let texts = Dictionary(uniqueKeysWithValues: objects.map { ($0.objectID, $0.value(forKey: "text") as? String) })
        #expect(ids.map { texts[$0] ?? nil } == Self.rows.map { $0["text"] as? String })
    }

    /// A file whose table lacks a column the model has (Core Data files made by other versions of an app) reads
    /// the other columns into their places and leaves the missing one out.
    @Test func aMissingColumnLeavesItsKeyOutAndTheOthersInPlace() throws {
        let folder = TemporaryFolder()
        let (url, ids) = try Self.savedStore(folder)
        do {
            let connection = try SQLiteConnection(path: url.path)
            try connection.execute("ALTER TABLE ZVALUE DROP COLUMN ZMEDIUM")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Value"])
        let fetched = try store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Value"], predicate: nil,
                                                        sortKeys: [], limit: 0))
        let expected = Self.rows.map { Self.describe($0.filter { $0.key != "medium" }) }
        #expect(fetched.map { $0.record.map { Self.describe($0.values) } } == expected)

        let context = ManagedObjectContext(coordinator: coordinator)
        let objects = try ids.map { try context.existingObject(with: $0) }
        #expect(objects.map { $0.value(forKey: "medium") == nil } == [true, true, true, true])
        #expect(objects.map { $0.value(forKey: "large") as? Int } == Self.rows.map { $0["large"] as? Int })
        #expect(objects.map { $0.value(forKey: "text") as? String } == Self.rows.map { $0["text"] as? String })
    }
}
