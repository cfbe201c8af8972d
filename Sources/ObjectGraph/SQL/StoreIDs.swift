/// Makes the IDs of one store's objects from one prototype ID per entity: the names are looked up once, and each
/// row's ID (and each ID a relationship column names) is the prototype with the row's key.
package struct StoreIDs {
    package let storeIdentifier: String
    /// Prototypes by entity number (numbers are small and dense: 1…N).
    private let byNumber: [ManagedObjectID?]
    /// Prototypes of numbers too large for `byNumber` (none in files Core Data writes).
    private let byFarNumber: [Int64: ManagedObjectID]
    private let byName: [String: ManagedObjectID]

    package init(schema: SQLSchema, storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
        var byNumber: [ManagedObjectID?] = []
        var byName: [String: ManagedObjectID] = [:]
        var byFarNumber: [Int64: ManagedObjectID] = [:]
        for (number, name) in schema.entityNames {
            let prototype = ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier, referenceKey: 0)
            byName[name] = prototype
            if number >= 0, number < 4096 {
                if byNumber.count <= Int(number) {
                    byNumber += repeatElement(nil, count: Int(number) + 1 - byNumber.count)
                }
                byNumber[Int(number)] = prototype
            } else {
                byFarNumber[number] = prototype
            }
        }
        self.byFarNumber = byFarNumber
        self.byNumber = byNumber
        self.byName = byName
    }

    /// The ID of the object with `key` of the entity numbered `number`; `nil` for a number the schema lacks.
    package func id(entityNumber number: Int64, key: Int64) -> ManagedObjectID? {
        if number >= 0, number < byNumber.count, let prototype = byNumber[Int(number)] {
            return prototype.withReferenceKey(key)
        }
        return byFarNumber.isEmpty ? nil : byFarNumber[number]?.withReferenceKey(key)
    }

    /// The ID of the object with `key` of a named entity.
    package func id(entityName name: String, key: Int64) -> ManagedObjectID {
        byName[name]?.withReferenceKey(key)
            ?? ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier, referenceKey: key)
    }
}
