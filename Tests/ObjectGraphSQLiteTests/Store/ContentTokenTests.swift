import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The content token reads `PRAGMA data_version` only when the store's files may have changed.
@Suite("SQLite store: content token")
struct ContentTokenTests {
    /// A store with one saved session whose files look last modified an hour ago (as if settled long since).
    private func settledStore() throws -> (Fixture, SQLiteStore, URL) {
        let fixture = Fixture(.sqlite)
        let store = try #require(try fixture.addStore() as? SQLiteStore)
        let context = fixture.context()
        context.makeSession("first")
        try context.save()
        let url = try #require(store.url)
        try ageFiles(of: url)
        return (fixture, store, url)
    }

    /// Sets the modification times of the database and its `-wal` file an hour back.
    private func ageFiles(of url: URL) throws {
        for path in [url.path, url.path + "-wal"] where FileManager.default.fileExists(atPath: path) {
            let anHourAgo = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
            var times = [anHourAgo, anHourAgo]  // access and modification
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
    }

    private func token(_ fixture: Fixture) throws -> ContentToken? {
        try fixture.coordinator.contentToken()
    }

    @Test func unchangedSettledFilesAreNotAskedAgain() throws {
        let (fixture, store, _) = try settledStore()
        let first = try token(fixture)
        let reads = store.dataVersionReads
        #expect(try token(fixture) == first)
        #expect(try token(fixture) == first)
        #expect(store.dataVersionReads == reads)
    }

    @Test func anotherConnectionsCommitChangesTheTokenOfSettledFiles() throws {
        let (fixture, store, url) = try settledStore()
        let before = try token(fixture)
        #expect(try token(fixture) == before)
        let reads = store.dataVersionReads

        // Another coordinator on the same file stands for another process writing to it.
        let other = PersistentStoreCoordinator(managedObjectModel: fixture.model)
        try other.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: other)
        context.makeSession("second")
        try context.save()

        let after = try token(fixture)
        #expect(after != before)
        #expect(store.dataVersionReads == reads + 1)
        let titles = try fixture.context().all("Session", sortedBy: "guid").map { $0.value(forKey: "guid") as? String }
        #expect(titles == ["first", "second"])
    }

    @Test func anotherConnectionsCommitIsSeenEvenWhenTheFilesKeepTheirTimes() throws {
        let (fixture, _, url) = try settledStore()
        let before = try token(fixture)
        let other = PersistentStoreCoordinator(managedObjectModel: fixture.model)
        try other.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: other)
        context.makeSession("second")
        try context.save()
        // The same (old) modification times as before the commit: the size and status-change time still differ.
        try ageFiles(of: url)
        #expect(try token(fixture) != before)
    }

    @Test func recentlyWrittenFilesAreAskedEveryTime() throws {
        let fixture = Fixture(.sqlite)
        let store = try #require(try fixture.addStore() as? SQLiteStore)
        let context = fixture.context()
        context.makeSession("first")
        try context.save()
        let first = try token(fixture)
        let reads = store.dataVersionReads
        #expect(try token(fixture) == first)
        #expect(store.dataVersionReads == reads + 1)
    }

    @Test func ownCommitsChangeTheToken() throws {
        let (fixture, _, _) = try settledStore()
        let before = try token(fixture)
        let context = fixture.context()
        context.makeSession("second")
        try context.save()
        #expect(try token(fixture) != before)
    }

    @Test func aRemovedStoreFailsInsteadOfAnsweringFromTheCache() throws {
        let (fixture, store, _) = try settledStore()
        _ = try token(fixture)
        store.didRemove()
        let error = #expect(throws: StoreError.self) { try store.contentToken() }
        #expect(error?.code == .io)
    }
}
