import Foundation
import Testing

@testable import ObjectGraph

/// An object of an entity with stored attributes only shares its slots' buffer with its record's row
/// (`sharedSlots(of:)`, `sharedRow(of:)`): this relies on `[(any Sendable)?]` and `[Any?]` being one type at run
/// time, checked here on the running toolchain, and on copy-on-write keeping the two apart once either changes.
@Suite("Slots and rows share their buffer")
struct SlotRowSharingTests {
    private static func address<T>(of array: [T]) -> UnsafeRawPointer? {
        array.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    @Test func aRowAndSlotsAreOneArrayTypeAndShareTheirBuffer() {
        #expect(type(of: [(any Sendable)?]()) == [Any?].self)
        let row: [(any Sendable)?] = [
            "a string far too long to be stored in a small string's sixteen bytes", 42, nil, 1.5,
            Date(timeIntervalSinceReferenceDate: 811_000_000),
        ]
        let slots = sharedSlots(of: row)
        #expect(Self.address(of: slots) == Self.address(of: row))
        #expect(slots.count == row.count)
        #expect(slots[0] as? String == row[0] as? String)
        #expect(slots[1] as? Int == 42)
        #expect(slots[2] == nil)
        #expect(slots[4] as? Date == Date(timeIntervalSinceReferenceDate: 811_000_000))
        let back = sharedRow(of: slots)
        #expect(Self.address(of: back) == Self.address(of: row))
        #expect(back[3] as? Double == 1.5)
    }

    private static func model() -> ManagedObjectModel {
        let talk = EntityDescription(
            name: "Talk",
            properties: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "minutes", type: .integer64),
            ])
        return ManagedObjectModel(entities: [talk])
    }

    /// A fetched object that changes after firing leaves its store's record alone (and the store's next reader
    /// sees the saved value); a saved object that changes again leaves the record its save made alone.
    @Test(arguments: [PersistentStoreType.inMemory, .binary])
    func changingAnObjectAfterSharingLeavesTheStoresRecord(_ type: PersistentStoreType) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("slot-row-sharing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        let url = type == .inMemory ? nil : folder.appendingPathComponent("store.\(type.rawValue)")
        try coordinator.addPersistentStore(type: type, at: url)
        let writer = ManagedObjectContext(coordinator: coordinator)
        let talk = writer.insertNewObject(forEntityName: "Talk")
        talk.setValue("Opening", forKey: "title")
        talk.setValue(30, forKey: "minutes")
        try writer.save()
        // Changed after the save (whose record may share the slots): the store keeps the saved values.
        talk.setValue("Changed, not saved", forKey: "title")

        let reader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try #require(try reader.fetch(FetchRequest(entityName: "Talk")).first)
        #expect(fetched.value(forKey: "title") as? String == "Opening")
        fetched.setValue(45, forKey: "minutes")
        fetched.setValue("Reader's title", forKey: "title")
        #expect(fetched.value(forKey: "minutes") as? Int == 45)

        let other = ManagedObjectContext(coordinator: coordinator)
        let again = try #require(try other.fetch(FetchRequest(entityName: "Talk")).first)
        #expect(again.value(forKey: "title") as? String == "Opening")
        #expect(again.value(forKey: "minutes") as? Int == 30)
        #expect(talk.value(forKey: "title") as? String == "Changed, not saved")
    }
}

/// A context that goes away empties its loaded objects' to-many lists in place (breaking the cycles between related
/// objects): an object kept past its context reads an empty list, and the objects its lists held are freed.
@Suite("Lists after the context went away")
struct ListsAfterContextTests {
    private static func model() -> ManagedObjectModel {
        let room = EntityDescription(
            name: "Room",
            properties: [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "talks", destination: "Talk", inverse: "room", toMany: true),
            ])
        let talk = EntityDescription(
            name: "Talk",
            properties: [
                AttributeDescription(name: "title", type: .string),
                RelationshipDescription(name: "room", destination: "Room", inverse: "talks"),
            ])
        return ManagedObjectModel(entities: [room, talk])
    }

    @Test func aListReadAfterItsContextWentAwayIsEmptyAndItsObjectsAreFreed() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: .inMemory)
        do {
            let writer = ManagedObjectContext(coordinator: coordinator)
            let room = writer.insertNewObject(forEntityName: "Room")
            room.setValue("Hall A", forKey: "name")
            for index in 0..<3 {
                let talk = writer.insertNewObject(forEntityName: "Talk")
                talk.setValue("Talk \(index)", forKey: "title")
                talk.setValue(room, forKey: "room")
            }
            try writer.save()
        }
        weak var talk: ManagedObject?
        var kept: ManagedObject?
        do {
            let reader = ManagedObjectContext(coordinator: coordinator)
            let room = try #require(try reader.fetch(FetchRequest(entityName: "Room")).first)
            let talks = room.objects(forKey: "talks")
            #expect(talks.count == 3)
            talk = talks.first
            kept = room
        }
        let room = try #require(kept)
        #expect(room.value(forKey: "name") as? String == "Hall A")
        #expect(room.objects(forKey: "talks").isEmpty)
        #expect(talk == nil)
    }
}
