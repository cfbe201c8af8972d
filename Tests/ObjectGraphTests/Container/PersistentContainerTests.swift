import Foundation
import Testing

@testable import ObjectGraph
@testable import ObjectGraphTestSupport

@Suite("Persistent container")
struct PersistentContainerTests {
    private func container(
        _ kind: StoreKind = .sqlite, in folder: TemporaryFolder,
        options: PersistentStoreOptions = [:]
    ) -> PersistentContainer {
        let container = PersistentContainer(name: "Notes", managedObjectModel: HistoryFixture.model())
        let description = PersistentStoreDescription(url: folder.file("Notes.\(kind.fileExtension)"))
        description.type = kind.type
        for (key, value) in options { description.setOption(value, forKey: key) }
        container.persistentStoreDescriptions = [description]
        return container
    }

    @Test func theDefaultDescriptionIsAnSQLiteStoreNamedAfterTheContainerInTheDefaultFolder() throws {
        let container = PersistentContainer(name: "Notes", managedObjectModel: HistoryFixture.model())
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description.type == .sqlite)
        #expect(description.url == PersistentContainer.defaultDirectoryURL().appendingPathComponent("Notes.sqlite"))
        #expect(description.shouldMigrateStoreAutomatically)
        #expect(description.shouldInferMappingModelAutomatically)
        #expect(!description.isReadOnly)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }

    @Test func theStoreTypesOfThePackageNeedNoRegistration() {
        // The lookup by class name itself, whatever other tests running beside this one registered meanwhile.
        let sqlite = StoreTypeRegistry.linkedStoreClass(for: .sqlite).map { String(reflecting: $0) }
        let xml = StoreTypeRegistry.linkedStoreClass(for: .xml).map { String(reflecting: $0) }
        #expect(sqlite == "ObjectGraphSQLite.SQLiteStore")
        #expect(xml == "ObjectGraphXML.XMLStore")
        #expect(StoreTypeRegistry.linkedStoreClass(for: PersistentStoreType(rawValue: "NoSuchStore")) == nil)
        #expect(PersistentStoreCoordinator.registeredStoreClass(for: .sqlite) != nil)
        #expect(PersistentStoreCoordinator.registeredStoreClass(for: .xml) != nil)
        #expect(PersistentStoreCoordinator.registeredStoreTypes.contains(.sqlite))
    }

    @Test func loadingAddsEveryDescribedStoreOnce() throws {
        let folder = TemporaryFolder()
        let container = container(in: folder)
        let readOnly = PersistentStoreDescription(url: folder.file("Other.xml"))
        readOnly.type = .xml
        container.persistentStoreDescriptions.append(readOnly)
        try container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [.sqlite, .xml])
        try container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.count == 2)
    }

    @Test func aFailingDescriptionIsReportedAndTheOthersLoad() throws {
        let folder = TemporaryFolder()
        let container = container(in: folder)
        let unknown = PersistentStoreDescription(url: folder.file("x.none"))
        unknown.type = "NoSuchType"
        container.persistentStoreDescriptions.insert(unknown, at: 0)
        var results: [(PersistentStoreType, StoreError.Code?)] = []
        container.loadPersistentStores { description, error in
            results.append((description.type, (error as? StoreError)?.code))
        }
        #expect(results.map(\.0) == ["NoSuchType", .sqlite])
        #expect(results.map(\.1) == [.unknownStoreType, nil])
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [.sqlite])

        let again = self.container(in: TemporaryFolder())
        again.persistentStoreDescriptions.insert(unknown, at: 0)
        #expect(throws: StoreError(code: .unknownStoreType, message: "")) { try again.loadPersistentStores() }
    }

    @Test func aBackgroundTaskSavesWhatTheViewContextThenSees() async throws {
        let folder = TemporaryFolder()
        let container = container(in: folder)
        try container.loadPersistentStores()
        let name = try await container.performBackgroundTask { context in
            context.makeItem("from the background", count: 1)
            try context.save()
            return context.name
        }
        #expect(name == "backgroundContext")
        let items = try await MainActor.run {
            try container.viewContext.all("Item").map { $0.value(forKey: "name") as? String }
        }
        #expect(items == ["from the background"])
    }

    /// Core Data's `viewContext.perform { }` ported as it is: the block runs on the main actor, where the view
    /// context lives, and what it returns comes back.
    @MainActor @Test func theViewContextPerformsOnTheMainActor() async throws {
        let folder = TemporaryFolder()
        let container = container(in: folder)
        try container.loadPersistentStores()
        let context = container.viewContext
        let saved = try await context.perform {
            MainActor.assertIsolated()
            _ = context.makeItem("shown", count: 1)
            try context.save()
            return context.hasChanges
        }
        #expect(!saved)
        let names = try context.performAndWait {
            try context.fetch(FetchRequest(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names == ["shown"])
    }

    @Test(.timeLimit(.minutes(1))) func theViewContextMergesSiblingSavesOnTheMainActorOnceAsked() async throws {
        let folder = TemporaryFolder()
        let container = container(in: folder)
        try container.loadPersistentStores()
        let id = try await MainActor.run {
            let item = container.viewContext.makeItem("shown", count: 1)
            try container.viewContext.save()
            return item.objectID
        }
        // Off by default, as in Core Data: another context's save leaves what the view context holds, also after a
        // fetch on the main actor.
        await MainActor.run { #expect(!container.viewContext.automaticallyMergesChangesFromParent) }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: id).setValue(7, forKey: "count")
            try context.save()
        }
        let unmerged = try await MainActor.run {
            _ = try container.viewContext.fetch(FetchRequest(entityName: "Item"))
            return container.viewContext.registeredObject(for: id)?.value(forKey: "count") as? Int
        }
        #expect(unmerged == 1)

        // Set (as ported code sets it), another context's change reaches the view context without a refresh.
        let (changes, continuation) = AsyncStream<Void>.makeStream()
        await MainActor.run {
            container.viewContext.automaticallyMergesChangesFromParent = true
            container.viewContext.addObserver { event in
                if case .objectsDidChange(let change) = event, !change.refreshed.isEmpty { continuation.yield() }
            }
        }
        try await container.performBackgroundTask { context in
            try context.existingObject(with: id).setValue(2, forKey: "count")
            try context.save()
        }
        var iterator = changes.makeAsyncIterator()
        _ = await iterator.next()
        let count = await MainActor.run {
            container.viewContext.registeredObject(for: id)?.value(forKey: "count") as? Int
        }
        #expect(count == 2)
    }

    @Test func aContextThatMergesAutomaticallyMergesAtItsNextFetchAndNotItsOwnSaves() throws {
        let fixture = try HistoryFixture(.sqlite)
        let writer = fixture.context()
        let item = writer.makeItem("a", count: 1)
        try writer.save()
        let reader = fixture.context()
        let gone = writer.makeItem("gone", count: 0)
        try writer.save()
        reader.automaticallyMergesChangesFromParent = true
        let readItem = try reader.existingObject(with: item.objectID)
        let readGone = try reader.existingObject(with: gone.objectID)
        #expect(readItem.value(forKey: "count") as? Int == 1)
        item.setValue(5, forKey: "count")
        writer.delete(gone)
        try writer.save()
        // Not merged yet: the reader is in its own isolation domain until it next does something.
        #expect(readItem.value(forKey: "count") as? Int == 1)
        _ = try reader.all("Item")
        #expect(readItem.value(forKey: "count") as? Int == 5)
        #expect(readGone.isDeleted || reader.registeredObject(for: gone.objectID) == nil)

        // A context that does not merge automatically keeps what it read.
        let other = fixture.context()
        let otherItem = try other.existingObject(with: item.objectID)
        item.setValue(6, forKey: "count")
        try writer.save()
        _ = try other.all("Item")
        #expect(otherItem.value(forKey: "count") as? Int == 5)
        _ = try reader.all("Item")
        #expect(readItem.value(forKey: "count") as? Int == 6)
        // Turned off, saves are no longer merged.
        reader.automaticallyMergesChangesFromParent = false
        item.setValue(7, forKey: "count")
        try writer.save()
        _ = try reader.all("Item")
        #expect(readItem.value(forKey: "count") as? Int == 6)
    }
}
