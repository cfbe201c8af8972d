import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphTestSupport

@Suite("Binary store")
struct BinaryStoreTests {
    /// Writes a small graph to a binary store file and returns its URL.
    func writeSample(in folder: TemporaryFolder, name: String = "sample.bin") throws -> (URL, String) {
        let model = TestModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let url = folder.file(name)
        let store = try coordinator.addPersistentStore(type: .binary, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let room = context.insertNewObject(forEntityName: "Room")
        room.setValue("Saal 1 ☃", forKey: "name")
        for index in 0..<5 {
            let session = context.makeSession("g\(index)", start: Date(timeIntervalSinceReferenceDate: Double(index)))
            session.setValue(room, forKey: "room")
        }
        try context.save()
        return (url, store.identifier)
    }

    @Test func reopensWithTheSameObjectsAndUUID() throws {
        let folder = TemporaryFolder()
        let (url, identifier) = try writeSample(in: folder)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(type: .binary, at: url)
        #expect(store.identifier == identifier)
        let context = ManagedObjectContext(coordinator: coordinator)
        let sessions = try context.all("Session", sortedBy: "guid")
        #expect(sessions.count == 5)
        let room = try #require(sessions[3].value(forKey: "room") as? ManagedObject)
        #expect(room.value(forKey: "name") as? String == "Saal 1 ☃")
        #expect(room.objects(forKey: "sessions").count == 5)
        #expect(sessions[3].value(forKey: "start") as? Date == Date(timeIntervalSinceReferenceDate: 3))
        let added = context.makeSession("new")
        try context.save()
        #expect(added.objectID.referenceKey > sessions.map(\.objectID.referenceKey).max()!)
    }

    /// A transformable the framework cannot decode (an archive of an app's own class, read from a Core Data store)
    /// is kept as its bytes and written back unchanged: converting such a store to a binary one loses nothing.
    @Test func undecodedTransformablesKeepTheirBytesAndClassName() throws {
        let folder = TemporaryFolder()
        let title = AttributeDescription(name: "title", type: .string)
        let info = AttributeDescription(name: "info", type: .transformable)
        let note = EntityDescription(name: "Note", properties: [title, info])
        let model = ManagedObjectModel(entities: [note])
        let url = folder.file("notes.bin")
        let archived = UndecodedTransformable(
            data: Data([0x62, 0x70, 0x00, 0xFF, 0x10]), rootClassName: "Palette.Color")
        let transformed = UndecodedTransformable(data: Data("custom transformer bytes".utf8), rootClassName: nil)
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for (title, value) in [("a", archived), ("b", transformed)] {
                let object = context.insertNewObject(forEntityName: "Note")
                object.setValue(title, forKey: "title")
                object.setValue(value, forKey: "info")
            }
            try context.save()
        }
        func read() throws -> (ManagedObjectContext, [ManagedObject]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            return (context, try context.all("Note", sortedBy: "title"))
        }
        var (context, notes) = try read()
        #expect(notes.map { $0.value(forKey: "info") as? UndecodedTransformable } == [archived, transformed])
        // Saved again for another change, the values stay as they were.
        notes[0].setValue("a2", forKey: "title")
        try context.save()
        (context, notes) = try read()
        #expect(notes.map { $0.value(forKey: "title") as? String } == ["a2", "b"])
        #expect(notes.map { $0.value(forKey: "info") as? UndecodedTransformable } == [archived, transformed])
    }

    @Test func writesDeterministicBytes() throws {
        let folder = TemporaryFolder()
        let (url, _) = try writeSample(in: folder)
        let first = try Data(contentsOf: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(type: .binary, at: url)
        let copy = folder.file("copy.bin")
        coordinator.setURL(copy, for: store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let session = try context.all("Session")[0]
        session.setValue("x", forKey: "title")
        session.setValue(session.committedValues(forKeys: ["title"])["title"] ?? nil, forKey: "title")
        try coordinator.setMetadata(coordinator.metadata(for: store), for: store)
        #expect(try Data(contentsOf: copy) == first)
    }

    @Test(arguments: [1, 8, 12, 40, 100])
    func truncatedFilesAreRefused(length: Int) throws {
        let folder = TemporaryFolder()
        let (url, _) = try writeSample(in: folder)
        let data = try Data(contentsOf: url)
        try data.prefix(min(length, data.count - 1)).write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(error.code == .corruptFile || error.code == .foreignFile)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func damagedBytesAreRefused() throws {
        let folder = TemporaryFolder()
        let (url, _) = try writeSample(in: folder)
        var data = try Data(contentsOf: url)
        for position in stride(from: 12, to: data.count - 8, by: max(1, data.count / 25)) {
            var damaged = data
            damaged[position] ^= 0x5A
            try damaged.write(to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
            #expect(throws: StoreError(code: .corruptFile, message: "")) {
                try coordinator.addPersistentStore(type: .binary, at: url)
            }
        }
        data[0] = UInt8(ascii: "X")
        try data.write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(throws: StoreError(code: .foreignFile, message: "")) {
            try coordinator.addPersistentStore(type: .binary, at: url)
        }
    }

    @Test func randomBytesBehindTheMagicNeverCrash() throws {
        let folder = TemporaryFolder()
        let url = folder.file("random.bin")
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            var bytes = Array("OGBSTORE".utf8) + [1, 0, 0, 0]
            bytes += (0..<Int.random(in: 0..<200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
            #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        }
    }

    @Test func aStoreWrittenWithAnotherModelIsIncompatible() throws {
        let folder = TemporaryFolder()
        let (url, _) = try writeSample(in: folder)
        let other = ManagedObjectModel(entities: [EntityDescription(name: "Session", properties: [
            AttributeDescription(name: "guid", type: .integer64),
        ])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: other)
        #expect(throws: StoreError(code: .incompatibleModel, message: "")) {
            try coordinator.addPersistentStore(type: .binary, at: url)
        }
        let lenient = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        _ = try lenient.addPersistentStore(type: .binary, at: url, options: [.ignoresModelVersion: true])
    }

    @Test func failedWritesLeaveTheOldFile() throws {
        let folder = TemporaryFolder()
        let (url, _) = try writeSample(in: folder)
        let before = try Data(contentsOf: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let store = try coordinator.addPersistentStore(type: .binary, at: url)
        coordinator.setURL(folder.file("missing-folder/x.bin"), for: store)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.makeSession("new")
        #expect(throws: StoreError(code: .io, message: "")) { try context.save() }
        #expect(context.hasChanges)
        #expect(try Data(contentsOf: url) == before)
        coordinator.setURL(url, for: store)
        try context.save()
        #expect(try Data(contentsOf: url) != before)
    }
}

@Suite("Atomic file writes")
struct AtomicFileWriterTests {
    @Test func staleTemporaryFilesOfAKilledWriterAreRemovedOnOpen() throws {
        let folder = TemporaryFolder()
        let url = folder.file("store.bin")
        let stale = folder.file(".store.bin.\(UUID().uuidString).tmp")
        let unrelated = folder.file(".other.bin.\(UUID().uuidString).tmp")
        let notOurs = folder.file(".store.bin.backup.tmp")
        for file in [stale, unrelated, notOurs] { try Data("partial".utf8).write(to: file) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: .binary, at: url)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(FileManager.default.fileExists(atPath: notOurs.path))
    }

    /// Stores opened one after another in one folder share a listing of it while it is unchanged; a temporary file
    /// left there after the listing changes the folder, and the next store opened beside it removes its own.
    @Test func aFolderChangedSinceItWasListedIsListedAgain() throws {
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: .binary, at: folder.file("first.bin"))
        // Past the file system's timestamp granularity (a few milliseconds), so that the folder's time moves.
        Thread.sleep(forTimeInterval: 0.05)
        let stale = folder.file(".second.bin.\(UUID().uuidString).tmp")
        try Data("partial".utf8).write(to: stale)
        try coordinator.addPersistentStore(type: .binary, at: folder.file("second.bin"))
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(AtomicFileWriter.removeStaleTemporaryFiles(for: folder.file("second.bin")) == 0)
    }
}
