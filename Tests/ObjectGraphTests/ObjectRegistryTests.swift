import Foundation
import Testing

@testable import ObjectGraph

/// The context's registry: dense tables by reference key per store and entity, a dictionary for the rest.
@Suite("Object registry")
struct ObjectRegistryTests {
    private static let entity = EntityDescription(name: "Session", properties: [
        AttributeDescription(name: "title", type: .string)
    ])

    private func object(_ id: ManagedObjectID) -> ManagedObject {
        let object = ManagedObject(entity: Self.entity, insertInto: nil)
        object.objectID = id
        return object
    }

    private func id(_ key: Int64, store: String = "STORE-A", entity: String = "Session") -> ManagedObjectID {
        ManagedObjectID(entityName: entity, storeIdentifier: store, referenceKey: key)
    }

    @Test func objectsAreFoundUnderTheirOwnIDOnlyWhateverTheirKeys() {
        let registry = ObjectRegistry()
        // Dense keys, a key far past what the registry holds (to the dictionary), a negative key, a temporary ID,
        // the same key in another store and under another entity name.
        let ids = [id(1), id(2), id(5_000_000_000), id(-3), ManagedObjectID.makeTemporary(entityName: "Session"),
                   id(1, store: "STORE-B"), id(1, entity: "Room")]
        let objects = ids.map(object)
        for (id, object) in zip(ids, objects) { registry[id] = object }
        #expect(registry.count == ids.count)
        for (id, object) in zip(ids, objects) { #expect(registry[id] === object) }
        #expect(registry[id(3)] == nil && registry[id(2, store: "STORE-B")] == nil && registry[id(2, entity: "Room")] == nil)
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)))

        // Replacing keeps the count; removing takes each out once.
        let replacement = object(id(2))
        registry[id(2)] = replacement
        #expect(registry.count == ids.count && registry[id(2)] === replacement)
        registry[id(5_000_000_000)] = nil
        registry[id(1)] = nil
        registry[id(1)] = nil
        registry[ids[4]] = nil
        #expect(registry.count == ids.count - 3)
        #expect(registry[id(1)] == nil && registry[id(5_000_000_000)] == nil && registry[ids[4]] == nil)
        #expect(registry[id(1, store: "STORE-B")] === objects[5])
        registry.removeAll()
        #expect(registry.count == 0 && registry.values.isEmpty && registry[id(2)] == nil)
    }

    /// A fetch into an empty context registers its objects unlooked-at, in a list: they are found, counted, gone
    /// through and removed as any other, and placed in their tables the first time an ID is asked about.
    @Test func objectsRegisteredAsDistinctAreFoundOnceAsked() {
        let registry = ObjectRegistry()
        let fetched = (Int64(1)...Int64(3_000)).reversed().map { object(id($0)) }
        for object in fetched { registry.registerDistinct(object) }
        #expect(registry.count == 3_000)
        var seen = 0
        registry.forEach { _ in seen += 1 }
        #expect(seen == 3_000 && registry.values.count == 3_000)
        #expect((Int64(1)...Int64(3_000)).allSatisfy { registry[id($0)] === fetched[3_000 - Int($0)] })
        #expect(registry[id(3_001)] == nil && registry.count == 3_000)

        // Registering, replacing and removing place the list first, whatever comes next.
        let other = ObjectRegistry()
        let first = object(id(7))
        other.registerDistinct(first)
        other.registerDistinct(object(id(8)))
        let replacement = object(id(8))
        other[id(8)] = replacement
        #expect(other.count == 2 && other[id(8)] === replacement && other[id(7)] === first)
        other.registerDistinct(object(id(9)))
        other[id(7)] = nil
        #expect(other.count == 2 && other[id(7)] == nil && other[id(9)] != nil)
        other.registerDistinct(object(id(10)))
        other.register(object(id(11)))
        #expect(other.count == 4 && other[id(10)] != nil && other[id(11)] != nil)
        other.registerDistinct(object(id(12)))
        other.removeAll()
        #expect(other.count == 0 && other.values.isEmpty && other[id(12)] == nil)
    }

    /// What a fetch does for each result: look the ID up, and register a new object under its own ID when there
    /// is none (in the last table's slot when it can, anywhere `insert` would put it otherwise).
    @Test func lookingUpThenRegisteringMakesAnObjectOnlyForAnIDWithoutOne() {
        let registry = ObjectRegistry()
        var made = 0
        func lookUp(_ id: ManagedObjectID) -> ManagedObject {
            if let found = registry.object(for: id) { return found }
            made += 1
            let new = object(id)
            registry.register(new)
            return new
        }
        let first = lookUp(id(1))
        #expect(made == 1 && registry.count == 1 && registry[id(1)] === first)
        #expect(lookUp(id(1)) === first && made == 1)
        // Keys in the table, in the dictionary (far), and a key of the table's range held by the dictionary.
        let far = lookUp(id(9_000_000))
        #expect(lookUp(id(9_000_000)) === far && made == 2)
        let keys = (Int64(2)...Int64(2_000)).map { lookUp(id($0)) }
        #expect(made == 2_001 && registry.count == 2_001)
        #expect((Int64(2)...Int64(2_000)).allSatisfy { registry[id($0)] === keys[Int($0) - 2] })
        #expect(lookUp(id(1_500)) === keys[1_498] && made == 2_001)
        let early = ObjectRegistry()
        let kept = object(id(3_000))
        early[id(3_000)] = kept  // past what its table may hold yet: in the dictionary
        for key in Int64(1)...Int64(3_100) where key != 3_000 { early[id(key)] = object(id(key)) }
        #expect(early.object(for: id(3_000)) === kept && early.count == 3_100)
        // Registered in the last table used, next to keys already there, and counted.
        let next = object(id(3_101))
        early.register(next)
        #expect(early[id(3_101)] === next && early.count == 3_101)
        // A temporary ID and one of another store go to tables of their own.
        let temporary = object(ManagedObjectID.makeTemporary(entityName: "Session"))
        let elsewhere = object(id(7, store: "STORE-C"))
        early.register(temporary)
        early.register(elsewhere)
        #expect(early[temporary.objectID] === temporary && early[id(7, store: "STORE-C")] === elsewhere)
        #expect(early[id(7)] !== elsewhere && early[id(7)]?.objectID == id(7) && early.count == 3_103)
    }

    /// `register(_:)` puts an object straight into a free slot of the last table used when nothing is held in the
    /// dictionary (what a fetch does for nearly every result): each object is found under its ID and counted once,
    /// and `forEach` and `values` see each once.
    @Test func registeringIntoTheLastTableCountsEachObjectOnce() {
        let registry = ObjectRegistry()
        var made: [ManagedObject] = []
        for key in Int64(1)...Int64(500) {
            #expect(registry.object(for: id(key)) == nil)
            let new = object(id(key))
            registry.register(new)
            made.append(new)
        }
        #expect(registry.count == 500)
        #expect((Int64(1)...Int64(500)).allSatisfy { registry[id($0)] === made[Int($0) - 1] })
        #expect(registry[id(501)] == nil && registry[id(1, store: "STORE-B")] == nil)
        var seen: [ObjectIdentifier: Int] = [:]
        registry.forEach { seen[ObjectIdentifier($0), default: 0] += 1 }
        #expect(seen.count == 500 && seen.values.allSatisfy { $0 == 1 })
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(made.map(ObjectIdentifier.init)))
    }

    @Test func aKeyRegisteredBeforeTheTableReachedItIsFoundAndCountedOnce() {
        let registry = ObjectRegistry()
        let far = id(50_000)
        let first = object(far)
        registry[far] = first  // past what the table may grow to yet: kept in the dictionary
        // Announcing a large fetch lets the table grow over that key.
        registry.reserveCapacity(100_000)
        for key in Int64(1)...Int64(60_000) where key != 50_000 { registry[id(key)] = object(id(key)) }
        #expect(registry.count == 60_000)
        #expect(registry[far] === first)
        // Registering the same ID again (now in the table's range) replaces it without counting it twice.
        let second = object(far)
        registry[far] = second
        #expect(registry.count == 60_000 && registry[far] === second)
        #expect(registry.values.filter { $0 === first }.isEmpty)
        registry[far] = nil
        #expect(registry.count == 59_999 && registry[far] == nil)
    }
}

/// New objects' temporary IDs share one counter; the registry keeps them in a table starting at the first key.
@Suite("Object registry, temporary IDs")
struct ObjectRegistryTemporaryTests {
    private static let entity = EntityDescription(name: "Session", properties: [
        AttributeDescription(name: "title", type: .string)
    ])

    private func temporary() -> (ManagedObjectID, ManagedObject) {
        let object = ManagedObject(entity: Self.entity, insertInto: nil)
        return (object.objectID, object)
    }

    @Test func temporaryIDsAreFoundBeforeAndAfterTheirTableStartsOver() {
        let registry = ObjectRegistry()
        let early = temporary()  // made first, registered last: below the table's start
        let batch = (0..<100).map { _ in temporary() }
        for (id, object) in batch { registry[id] = object }
        registry[early.0] = early.1
        #expect(registry.count == 101)
        #expect(batch.allSatisfy { registry[$0.0] === $0.1 } && registry[early.0] === early.1)

        // Emptied (as a save does), the table starts over at the next key; the early one is still found.
        for (id, _) in batch { registry[id] = nil }
        #expect(registry.count == 1 && batch.allSatisfy { registry[$0.0] == nil })
        let later = (0..<10).map { _ in temporary() }
        for (id, object) in later { registry[id] = object }
        #expect(registry.count == 11 && later.allSatisfy { registry[$0.0] === $0.1 })
        #expect(registry[early.0] === early.1 && batch.allSatisfy { registry[$0.0] == nil })
        registry[early.0] = nil
        #expect(registry.count == 10 && registry[early.0] == nil)
    }
}

/// IDs share their names per entity and store; names from outside are looked up but never added.
@Suite("Object ID names")
struct ManagedObjectIDNameTests {
    @Test func anIDParsedBeforeItsStoreIsKnownEqualsTheStoresOwn() throws {
        let store = UUID().uuidString
        let uri = try #require(URL(string: "x-coredata://\(store)/Session/p7"))
        let parsed = try #require(ManagedObjectID(uriRepresentation: uri))
        #expect(parsed.sharedNames == nil)  // not added by parsing
        let made = ManagedObjectID(entityName: "Session", storeIdentifier: store, referenceKey: 7)
        #expect(made.sharedNames != nil)
        #expect(parsed == made && made == parsed && parsed.hashValue == made.hashValue)
        #expect(!(parsed < made) && !(made < parsed))
        #expect(parsed != made.withReferenceKey(8) && parsed < made.withReferenceKey(8))
        #expect(parsed != ManagedObjectID(entityName: "Room", storeIdentifier: store, referenceKey: 7))
        // Whether two IDs name one entity and store, shared names or not.
        #expect(parsed.hasSameNames(as: made) && made.hasSameNames(as: parsed))
        #expect(made.hasSameNames(as: made.withReferenceKey(9)))
        #expect(!made.hasSameNames(as: ManagedObjectID(entityName: "Room", storeIdentifier: store, referenceKey: 7)))
        #expect(!made.hasSameNames(as: ManagedObjectID(entityName: "Session", storeIdentifier: "OTHER", referenceKey: 7)))
        #expect(!parsed.hasSameNames(as: ManagedObjectID(entityName: "Room", storeIdentifier: store, referenceKey: 7)))
        // Parsed again now that the store made its IDs, the names are shared.
        let again = try #require(ManagedObjectID(uriRepresentation: uri))
        #expect(again.sharedNames == made.sharedNames && again == parsed)
        #expect(again.entityName == "Session" && again.storeIdentifier == store && again.referenceKey == 7)

        // A registry finds an object registered under the store's ID by the ID parsed before, and the other way.
        let registry = ObjectRegistry()
        let entity = EntityDescription(name: "Session")
        let object = ManagedObject(entity: entity, insertInto: nil)
        registry[made] = object
        #expect(registry[parsed] === object)
        #expect(registry.object(for: parsed) === object)
        let olderURI = try #require(URL(string: "x-coredata://\(UUID().uuidString)/Session/p1"))
        let older = try #require(ManagedObjectID(uriRepresentation: olderURI))
        registry[older] = object
        let sameNames = ManagedObjectID(entityName: "Session", storeIdentifier: older.storeIdentifier!, referenceKey: 1)
        #expect(registry[sameNames] === object && registry.count == 2)
    }
}
