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
        ["large": 1, "text": "only two"],
    ]

    private static func describe(_ values: [String: any Sendable]) -> [String: String] {
        values.mapValues { "\(type(of: $0)):\($0)" }
    }

    @Test func keyMatcherFindsNamesAndRefusesSharedSlots() throws {
        let matcher = try #require(KeyMatcher(["i1", nil, "i2", "date", "a much longer attribute name"]))
        #expect(matcher.position(of: "i1") == 0 && matcher.position(of: "i2") == 2 && matcher.position(of: "date") == 3)
        #expect(matcher.position(of: "a much longer attribute name") == 4)
        #expect(matcher.position(of: "i3") == nil && matcher.position(of: "") == nil && matcher.position(of: "d") == nil)
        #expect(KeyMatcher(["axh", "bxa"]) == nil)  // same length, 7 * first + last equal modulo 256
    }

    /// Writing goes through the key matcher, or through lookups when attribute names share a slot.
    @Test(arguments: [false, true])
    func fetchRecordAndBatchReadsReturnTheSavedValues(namesShareASlot: Bool) throws {
        SQLiteStore.register()
        let folder = TemporaryFolder()
        let model = Self.model()
        if namesShareASlot {
            model.entities[0].properties += [AttributeDescription(name: "axh", type: .string),
                                             AttributeDescription(name: "bxa", type: .string)]
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.file("values.sqlite"))
        var rows = Self.rows
        if namesShareASlot { rows[2].merge(["axh": "h", "bxa": "a"]) { $1 } }
        let keys = try store.newReferenceKeys(forEntityName: "Value", count: rows.count)
        var changes = StoreChanges()
        changes.inserted = zip(keys, rows).map { key, values in
            StoreRecord(objectID: store.objectID(forEntityName: "Value", referenceKey: key), values: values)
        }
        try store.prepareSave(changes).commit()
        let expected = changes.inserted.map { Self.describe($0.values) }

        let entity = try #require(coordinator.managedObjectModel.entitiesByName["Value"])
        let fetched = try store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Value"], predicate: nil,
                                                        sortKeys: [], limit: 0))
        #expect(fetched.map { $0.record.map { Self.describe($0.values) } } == expected)
        let single = try changes.inserted.map { try store.record(for: $0.objectID).map { Self.describe($0.values) } }
        #expect(single == expected)
        let batch = try store.records(for: changes.inserted.map(\.objectID).reversed())
        let byID = Dictionary(uniqueKeysWithValues: batch.map { ($0.objectID, Self.describe($0.values)) })
        #expect(changes.inserted.map { byID[$0.objectID] } == expected)
    }
}
