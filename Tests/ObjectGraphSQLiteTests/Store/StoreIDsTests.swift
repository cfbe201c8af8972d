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
}
