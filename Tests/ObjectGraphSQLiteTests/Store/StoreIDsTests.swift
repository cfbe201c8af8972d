import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite

/// The SQLite store's IDs by entity number (`Z_ENT`), made from one prototype per entity.
@Suite("SQLite store IDs")
struct StoreIDsTests {
    @Test func idsAreMadeForKnownNumbersSmallOrLargeAndNamesAndNoneForUnknownNumbers() {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Room"), EntityDescription(name: "Track")])
        // Core Data numbers entities 1…N, but a file may hold any number: a large one takes the other path.
        let schema = SQLSchema(model: model, configurationName: nil, numbers: ["Room": 2, "Track": 5_000])
        let ids = StoreIDs(schema: schema, storeIdentifier: "STORE")
        #expect(ids.id(entityNumber: 2, key: 7) == ManagedObjectID(entityName: "Room", storeIdentifier: "STORE",
                                                                     referenceKey: 7))
        #expect(ids.id(entityNumber: 5_000, key: 3) == ManagedObjectID(entityName: "Track", storeIdentifier: "STORE",
                                                                         referenceKey: 3))
        #expect(ids.id(entityNumber: 1, key: 1) == nil && ids.id(entityNumber: 4_999, key: 1) == nil)
        #expect(ids.id(entityNumber: -1, key: 1) == nil && ids.id(entityNumber: 9_999, key: 1) == nil)
        #expect(ids.id(entityName: "Track", key: 9) == ManagedObjectID(entityName: "Track", storeIdentifier: "STORE",
                                                                         referenceKey: 9))
        // A name outside the schema (a relationship's destination in another configuration) still gets its ID.
        #expect(ids.id(entityName: "Note", key: 4) == ManagedObjectID(entityName: "Note", storeIdentifier: "STORE",
                                                                        referenceKey: 4))
    }

    /// The to-many lists the SQL stores' record readers' subqueries write, `key:entity,…`, read from their bytes.
    @Test func toManyListsAreReadItemByItemSkippingWhatDoesNotParse() {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Room"), EntityDescription(name: "Track")])
        let schema = SQLSchema(model: model, configurationName: nil, numbers: ["Room": 2, "Track": 3])
        let ids = StoreIDs(schema: schema, storeIdentifier: "S")
        func id(_ entity: String, _ key: Int64) -> ManagedObjectID {
            ManagedObjectID(entityName: entity, storeIdentifier: "S", referenceKey: key)
        }
        func parse(_ text: String) -> [ManagedObjectID] {
            Array(text.utf8).withUnsafeBufferPointer { SQLRecordLayout.parseList($0, destination: "Room", ids: ids) }
        }
        #expect(parse("12:2,7:3,40:2") == [id("Room", 12), id("Track", 7), id("Room", 40)])
        // An unknown or missing entity number gives the destination; an item whose key does not parse is skipped,
        // and so is an empty one.
        #expect(parse("5:99,6:,8,x:2,,9:2") == [id("Room", 5), id("Room", 6), id("Room", 8), id("Room", 9)])
        // A key past Int64 is no key.
        #expect(parse("99999999999999999999:2,1:2") == [id("Room", 1)])
        #expect(parse("9223372036854775807:3") == [id("Track", Int64.max)])
    }
}
