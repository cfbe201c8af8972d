import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

/// Core Data's `destroyPersistentStore` and `replacePersistentStore` on the file stores: what they delete and copy,
/// and that a failure changes nothing.
@Suite("Destroying and replacing store files")
struct StoreFilesTests {
    static let fileKinds: [StoreKind] = [.sqlite, .binary, .xml]

    private static func titles(at url: URL, kind: StoreKind) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.addPersistentStore(type: kind.type, at: url)
        return try ManagedObjectContext(coordinator: coordinator).all("Session", sortedBy: "title")
            .compactMap { $0.value(forKey: "title") as? String }
    }

    private static func files(beside url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(url.lastPathComponent) }.sorted()
    }

    @Test(arguments: fileKinds)
    func destroyingAnAttachedStoreRemovesItAndItsFiles(kind: StoreKind) throws {
        let fixture = Fixture(kind)
        let store = try fixture.addStore(options: [.persistentHistoryTracking: true])
        let url = try #require(store.url)
        let context = fixture.context()
        let session = context.makeSession("a")
        try context.save()
        #expect(!(try Self.files(beside: url)).isEmpty)

        try fixture.coordinator.destroyPersistentStore(at: url, type: kind.type)
        #expect(fixture.coordinator.persistentStores.isEmpty)
        #expect(try Self.files(beside: url) == [])
        // The object's store is gone: the context sees it invalid at its next use.
        _ = try context.all("Session")
        #expect(session.isInvalid)
        // Destroying what is not there is no error; a new store starts empty.
        try fixture.coordinator.destroyPersistentStore(at: url, type: kind.type)
        #expect(try Self.titles(at: url, kind: kind) == [])
    }

    @Test func destroyingWithAnUnknownTypeTouchesNothing() throws {
        let fixture = Fixture(.sqlite)
        let url = try #require(try fixture.addStore().url)
        #expect {
            try fixture.coordinator.destroyPersistentStore(at: url, type: PersistentStoreType(rawValue: "NoSuch"))
        } throws: { ($0 as? StoreError)?.code == .unknownStoreType }
        #expect(fixture.coordinator.persistentStores.count == 1)
        #expect(FileManager.default.fileExists(atPath: url.path))
        // A URL that names no file (a server's) is refused, with nothing deleted.
        let server = try #require(URL(string: "postgres://localhost/almanac"))
        #expect {
            try fixture.coordinator.destroyPersistentStore(at: server, type: .sqlite)
        } throws: { ($0 as? StoreError)?.code == .unsupportedRequest }
        #expect {
            try fixture.coordinator.replacePersistentStore(at: server, withPersistentStoreFrom: url, type: .sqlite)
        } throws: { ($0 as? StoreError)?.code == .unsupportedRequest }
        #expect(fixture.coordinator.persistentStores.count == 1)
    }

    @Test(arguments: fileKinds)
    func replacingCopiesTheSourceOverTheDestination(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let source = kind.url("backup", in: folder)
        let destination = kind.url("live", in: folder)
        for (url, titles) in [(source, ["Kept A", "Kept B"]), (destination, ["Overwritten"])] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
            let store = try coordinator.addPersistentStore(type: kind.type, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for (index, title) in titles.enumerated() { context.makeSession("\(index)", title: title) }
            try context.save()
            try coordinator.remove(store)
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: kind.type)
        #expect(try Self.titles(at: destination, kind: kind) == ["Kept A", "Kept B"])
        #expect(try Self.titles(at: source, kind: kind) == ["Kept A", "Kept B"])
        // The copy keeps the source's store UUID: its object IDs name the same objects.
        let metadata = { (url: URL) in
            try PersistentStoreCoordinator.metadataForPersistentStore(type: kind.type, at: url, model: TestModel.make())
        }
        #expect(try metadata(destination).storeUUID == metadata(source).storeUUID)
        #expect(!(try Self.files(beside: destination)).contains { $0.contains("replacing") })
        // A store replaced with itself stays as it is.
        try coordinator.replacePersistentStore(at: source, withPersistentStoreFrom: source, type: kind.type)
        #expect(try Self.titles(at: source, kind: kind) == ["Kept A", "Kept B"])
    }

    /// A companion that cannot be deleted (a folder where `-journal` would be): destroy fails with `io` and keeps
    /// the store file, which it deletes last; replace sets it aside with the rest of the old store and removes it.
    @Test func aCompanionThatCannotBeDeletedFailsWithIOAndKeepsTheStoreFile() throws {
        let folder = TemporaryFolder()
        let (url, backup) = try Self.liveAndBackup(in: folder)
        let blocker = URL(fileURLWithPath: url.path + "-journal")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: blocker.appendingPathComponent("inside"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())

        #expect {
            try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        } throws: { ($0 as? StoreError)?.code == .io }
        #expect(FileManager.default.fileExists(atPath: url.path))

        try coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: backup, type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: blocker.path))
        #expect(try Self.titles(at: url, kind: .sqlite) == ["Backup"])
        #expect(try Self.hiddenFiles(in: folder) == [])
    }

    /// Two closed SQLite stores in `folder`: "live", with a session titled Live, and "backup", with one titled
    /// Backup.
    private static func liveAndBackup(
        in folder: TemporaryFolder, options: PersistentStoreOptions = [:]
    ) throws -> (live: URL, backup: URL) {
        let live = StoreKind.sqlite.url("live", in: folder)
        let backup = StoreKind.sqlite.url("backup", in: folder)
        for (file, title) in [(live, "Live"), (backup, "Backup")] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: file, options: options)
            let context = ManagedObjectContext(coordinator: coordinator)
            context.makeSession("a", title: title)
            try context.save()
            try coordinator.remove(store)
        }
        return (live, backup)
    }

    /// The files a replacement stages or sets aside (dot-files beside the destination).
    private static func hiddenFiles(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }
    }

    /// Every file of a store (name and bytes), to show that a failed replacement changed none of them.
    private static func contents(beside url: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try files(beside: url) {
            result[name] = try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent(name))
        }
        return result
    }

    /// A rename that fails, and the undoing of the one before it too (the old store file set aside): `io` naming
    /// the file to put back by hand, and nothing of the old store deleted.
    @Test func aFailedUndoSaysWhereTheOldFilesAre() throws {
        let folder = TemporaryFolder()
        let (url, backup) = try Self.liveAndBackup(in: folder)
        for file in [url, backup] {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        }
        let before = try Data(contentsOf: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        var calls: [(String, String)] = []
        let error = try #require(throws: StoreError.self) {
            try coordinator.replacePersistentStore(
                at: url, withPersistentStoreFrom: backup, sourceOptions: [:], type: .sqlite,
                renaming: { from, to in
                    calls.append((from, to))
                    // The store file set aside (the destination's only file), then the copy moved in fails, and
                    // so does moving the store file back.
                    return calls.count == 1 ? (rename(from, to) == 0 ? 0 : errno) : EIO
                })
        }
        #expect(error.code == .io)
        #expect(calls.count == 3)
        let aside = try #require(calls.first?.1)
        #expect(error.message.contains("put them back by hand") && error.message.contains(aside))
        #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // Only the set-aside file is left: the staged copy is gone.
        #expect(try Self.hiddenFiles(in: folder) == [URL(fileURLWithPath: aside).lastPathComponent])
    }

    /// A rename that fails at any step of putting the files in place (setting the destination's files aside,
    /// moving the copies in): `io`, and the destination's files are back as they were, byte for byte, with no
    /// staged or set-aside file left. The destination has a write-ahead log and a history file of its own; the
    /// source brings its store file, a history file and the empty log reading its metadata leaves (three renames
    /// aside, three into place, the store file's last).
    @Test(arguments: 1...6)
    func aRenameThatFailsPutsTheDestinationBack(failingAt step: Int) throws {
        let folder = TemporaryFolder()
        let (url, backup) = try Self.liveAndBackup(in: folder, options: [.persistentHistoryTracking: true])
        for (file, title) in [(url, "Live"), (backup, "Backup")] {
            try Data("history of \(title)".utf8).write(to: URL(fileURLWithPath: file.path + "-history"))
            // The empty log SQLite may leave (no connection is open): the source brings no log.
            try? FileManager.default.removeItem(atPath: file.path + "-wal")
        }
        // A log beside the destination, as a store another program has open would have.
        try Data("log of Live".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
        let before = try Self.contents(beside: url)
        #expect(before.keys.sorted() == ["live.sqlite", "live.sqlite-history", "live.sqlite-wal"])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        var calls = 0
        #expect {
            try coordinator.replacePersistentStore(
                at: url, withPersistentStoreFrom: backup, sourceOptions: [:], type: .sqlite,
                renaming: { from, to in
                    calls += 1
                    return calls == step ? EIO : (rename(from, to) == 0 ? 0 : errno)
                })
        } throws: { ($0 as? StoreError)?.code == .io }
        #expect(try Self.contents(beside: url) == before)
        #expect(try Self.hiddenFiles(in: folder) == [])

        // The same replacement with renames that work: the source's files, nothing else, in six renames (so the
        // cases above failed each of them).
        var renames = 0
        try coordinator.replacePersistentStore(
            at: url, withPersistentStoreFrom: backup, sourceOptions: [:], type: .sqlite,
            renaming: { from, to in
                renames += 1
                return rename(from, to) == 0 ? 0 : errno
            })
        #expect(renames == 6)
        let after = try Self.contents(beside: url)
        // The old log went with the old store file (SQLite would otherwise replay it into the new one); the log
        // there now is the source's (the empty one reading its metadata left), or none.
        #expect(after["live.sqlite-wal"] == (try? Data(contentsOf: URL(fileURLWithPath: backup.path + "-wal"))))
        #expect(after["live.sqlite-history"] == Data("history of Backup".utf8))
        // The failing rename, then each one before it undone.
        #expect(calls == 2 * step - 1)
        #expect(after["live.sqlite"] == (try Data(contentsOf: backup)))
        #expect(try Self.hiddenFiles(in: folder) == [])
    }

    @Test func aSourceThatIsNotAStoreOrAnOpenDestinationChangesNothing() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let destination = try #require(store.url)
        let context = fixture.context()
        context.makeSession("a", title: "Live")
        try context.save()
        let junk = fixture.folder.file("junk.sqlite")
        try Data("not a database, not at all, just text".utf8).write(to: junk)

        // The destination is open here: refused.
        #expect {
            try fixture.coordinator.replacePersistentStore(
                at: destination, withPersistentStoreFrom: junk, type: .sqlite)
        } throws: { ($0 as? StoreError)?.code == .storeAlreadyAdded }
        try fixture.coordinator.remove(store)
        // The source is not a store: refused before anything is copied.
        #expect {
            try fixture.coordinator.replacePersistentStore(
                at: destination, withPersistentStoreFrom: junk, type: .sqlite)
        } throws: { error in
            let code = (error as? StoreError)?.code
            return code == .corruptFile || code == .foreignFile
        }
        #expect(try Self.titles(at: destination, kind: .sqlite) == ["Live"])
        #expect(!(try Self.files(beside: destination)).contains { $0.contains("replacing") })
    }
}
