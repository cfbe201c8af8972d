import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// What only the SQLite store does with history: other connections' commits, and history written by another
/// coordinator on the same file.
@Suite("SQLite persistent history")
struct SQLiteHistoryTests {
    @Test func anotherCoordinatorsCommitIsARemoteChangeWithItsHistoryToken() async throws {
        let folder = TemporaryFolder()
        let url = folder.file("shared.sqlite")
        let watching = try HistoryFixture(.sqlite, url: url)
        let writing = try HistoryFixture(.sqlite, url: url)
        #expect(watching.store.identifier == writing.store.identifier)

        // The watcher's own saves do not change what tells it of others' commits.
        let own = watching.context()
        let before = try watching.store.externalChangeCount()
        own.makeItem("own")
        try own.save()
        #expect(try watching.store.externalChangeCount() == before)

        let changes = watching.coordinator.remoteChanges(pollingInterval: .milliseconds(20))
        let writer = writing.context(author: "other process")
        writer.makeItem("theirs")
        try writer.save()

        // Generous: the first look after the commit reports it; the bound only keeps a broken build from hanging.
        let change = await withTaskGroup(of: PersistentStoreRemoteChange?.self) { group in
            group.addTask {
                var iterator = changes.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let remote = try #require(change)
        #expect(remote.storeIdentifier == watching.store.identifier)
        #expect(remote.storeURL?.standardizedFileURL == url.standardizedFileURL)
        let token = try #require(remote.historyToken)
        let transactions = try own.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(transactions.map(\.author) == [nil, "other process"])
        #expect(transactions.last?.token == token)
    }

    @Test func aStoreOpenedReadOnlyWithoutHistoryTablesHasAnEmptyHistory() throws {
        let folder = TemporaryFolder()
        let url = folder.file("plain.sqlite")
        do {
            let plain = try HistoryFixture(.sqlite, tracking: false, url: url)
            let context = plain.context()
            context.makeItem("a")
            try context.save()
        }
        let readOnly = try HistoryFixture(.sqlite, url: url, readOnly: true)
        #expect(try readOnly.context().fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).isEmpty)
        #expect(
            readOnly.coordinator.currentPersistentHistoryToken()?.transactionNumbers == [readOnly.store.identifier: 0])
    }
}
