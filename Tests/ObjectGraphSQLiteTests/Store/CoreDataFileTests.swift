import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Reads a real store written by Apple's Core Data (macOS Notes, `NotesV7.storedata`).
/// Where the real Notes store is, when ../shared/coredata is beside the package.
enum NotesFixture {
    static var file: URL? { sharedFixturesDirectory()?.appendingPathComponent("coredata/NotesV7.storedata") }
    static var isAvailable: Bool { file.map { FileManager.default.fileExists(atPath: $0.path) } ?? false }
}

@Suite(
    "Core Data file",
    .enabled(
        if: NotesFixture.isAvailable,
        "../shared/coredata/NotesV7.storedata is absent (a fresh clone has no shared/): skipped"))
struct CoreDataFileTests {
    static var notesFile: URL? { NotesFixture.file }

    /// A copy of the file in a temporary folder (the shared file is never opened for writing).
    static func openNotes(in folder: TemporaryFolder) throws -> PersistentStoreCoordinator {
        let source = try #require(notesFile)
        let copy = folder.file("NotesV7.storedata")
        try FileManager.default.copyItem(at: source, to: copy)
        let wal = URL(fileURLWithPath: source.path + "-wal")
        if let size = try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int, size > 0 {
            try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: copy.path + "-wal"))
        }
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: NotesModel.make())
        try coordinator.addPersistentStore(
            type: .sqlite, at: copy, options: [.readOnly: true, .ignoresModelVersion: true])
        return coordinator
    }

    @Test func accountsResolveTheirSubentitiesThroughZ_ENT() throws {
        let folder = TemporaryFolder()
        let coordinator = try Self.openNotes(in: folder)
        let context = ManagedObjectContext(coordinator: coordinator)
        let accounts = try context.all("Account", sortedBy: "accountDescription")
        #expect(accounts.map { $0.value(forKey: "accountDescription") as? String } == ["On My Mac", "yahoo.com"])
        #expect(accounts.map(\.entity.name) == ["LocalAccount", "IMAPAccount"])
        #expect(accounts[1].value(forKey: "hostname") as? String == "imap.mail.yahoo.com")
        #expect(accounts[1].value(forKey: "port") as? Int == 993)
        #expect(accounts[1].value(forKey: "emailAddress") as? String == "ali_someemail@domain.com")
        let root = try #require(accounts[1].value(forKey: "rootFolder") as? ManagedObject)
        #expect(root.entity.name == "IMAPFolder")
        #expect(root.value(forKey: "name") as? String == "RootFolder")
        #expect((accounts[1].value(forKey: "trashFolder") as? ManagedObject)?.entity.name == "TrashFolder")
    }

    @Test func foldersAndNotesFetchWithPredicatesAndRelationships() throws {
        let folder = TemporaryFolder()
        let coordinator = try Self.openNotes(in: folder)
        let context = ManagedObjectContext(coordinator: coordinator)
        let folders = try context.all("Folder", sortedBy: "name")
        #expect(folders.count == 7)
        #expect(Set(folders.map(\.entity.name)) == ["Folder", "IMAPFolder", "TrashFolder"])
        let request = FetchRequest(entityName: "Folder")
        request.predicate = try ObjectPredicate(format: "parent.account.accountDescription == %@", "On My Mac")
        request.sortKeys = [SortKey("name")]
        #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["Notes", "Recovered Items"])
        request.includesSubentities = false
        request.predicate = nil
        #expect(try context.count(for: request) == 3)

        let notes = try context.all("Note", sortedBy: "dateCreated")
        #expect(notes.count == 3)
        #expect(notes.first?.value(forKey: "title") as? String == "building 4th brandy gibs")
        #expect(
            (notes.first?.value(forKey: "dateCreated") as? Date)?.timeIntervalSinceReferenceDate == 413779107.097813)
        let home = try #require(notes.first?.value(forKey: "folder") as? ManagedObject)
        #expect(home.value(forKey: "name") as? String == "Notes")
        #expect(Set(home.objects(forKey: "notes").map(\.objectID)) == Set(notes.map(\.objectID)))
        let body = try #require(notes.first?.value(forKey: "body") as? ManagedObject)
        #expect((body.value(forKey: "htmlString") as? String)?.count ?? 0 > 100)
        let titled = FetchRequest(entityName: "Note")
        titled.predicate = try ObjectPredicate(format: "title BEGINSWITH[c] 'PUBLIC' AND folder.name == 'Notes'")
        #expect(try context.fetch(titled).map { $0.value(forKey: "title") as? String } == ["public class ImageBlocks "])
    }

    @Test func readOnlyAppleStoreRefusesSavesAndStaysUnchanged() throws {
        let folder = TemporaryFolder()
        let coordinator = try Self.openNotes(in: folder)
        let copy = folder.file("NotesV7.storedata")
        let before = try Data(contentsOf: copy)
        let context = ManagedObjectContext(coordinator: coordinator)
        let note = try #require(try context.all("Note").first)
        note.setValue("changed", forKey: "title")
        #expect(throws: StoreError(code: .readOnlyStore, message: "")) { try context.save() }
        try coordinator.remove(coordinator.persistentStores[0])
        #expect(try Data(contentsOf: copy) == before)
    }
}
