import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphTestSupport

/// Persistent history, run against every store type that keeps it.
@Suite("Persistent history conformance")
struct PersistentHistoryConformanceTests {
    static let kinds: [StoreKind] = StoreKind.all.filter { kind in
        PersistentStoreCoordinator.registeredStoreClass(for: kind.type)?.supportsPersistentHistory ?? false
    }

    @Test(arguments: kinds)
    func eachSaveIsATransactionWithItsAuthorContextAndChanges(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let context = fixture.context(author: "importer", name: "import")
        let kept = context.makeItem("kept", count: 1)
        let gone = context.makeItem("gone", count: 2)
        try context.save()
        kept.setValue(5, forKey: "count")
        try context.save()
        context.delete(gone)
        try context.save()

        let transactions = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(transactions.count == 3)
        #expect(transactions.map(\.author) == ["importer", "importer", "importer"])
        #expect(transactions.map(\.contextName) == ["import", "import", "import"])
        #expect(transactions.allSatisfy { $0.storeID == fixture.store.identifier })
        #expect(transactions.map(\.transactionNumber) == transactions.map(\.transactionNumber).sorted())
        #expect(Set(transactions.map(\.transactionNumber)).count == 3)
        #expect(transactions[0].changes.map(\.changeType) == [.insert, .insert])
        #expect(Set(transactions[0].changes.map(\.changedObjectID)) == [kept.objectID, gone.objectID])
        #expect(transactions[0].changes.allSatisfy { $0.updatedProperties == nil && $0.tombstone == nil })
        #expect(transactions[1].changes.map(\.changeType) == [.update])
        #expect(transactions[1].changes[0].changedObjectID == kept.objectID)
        #expect(transactions[1].changes[0].updatedProperties == ["count"])
        let deletion = try #require(transactions[2].changes.first)
        #expect(deletion.changeType == .delete)
        #expect(deletion.tombstone?["name"] as? String == "gone")
        #expect(deletion.tombstone?["count"] == nil)
        let changeIDs = transactions.flatMap(\.changes).map(\.changeID)
        #expect(changeIDs == changeIDs.sorted() && Set(changeIDs).count == changeIDs.count)
    }

    @Test(arguments: kinds)
    func fetchingAfterATokenOrADateReturnsOnlyLaterTransactions(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let context = fixture.context()
        context.makeItem("a")
        try context.save()
        let token = try #require(fixture.coordinator.currentPersistentHistoryToken(fromStores: nil))
        let first = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(token == first.last?.token)
        let middle = Date()
        context.makeItem("b")
        try context.save()
        context.makeItem("c")
        try context.save()

        let afterToken = try context.fetchHistory(.fetchHistory(after: token))
        #expect(afterToken.count == 2)
        #expect(afterToken.allSatisfy { $0.transactionNumber > first[0].transactionNumber })
        #expect(try context.fetchHistory(.fetchHistory(after: middle)).count == 2)
        #expect(try context.fetchHistory(.fetchHistory(after: first[0])).count == 2)
        let limited = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        limited.fetchLimit = 2
        #expect(
            try context.fetchHistory(limited).map(\.transactionNumber) == first.map(\.transactionNumber)
                + [afterToken[0].transactionNumber])
        let current = try #require(fixture.coordinator.currentPersistentHistoryToken(fromStores: [fixture.store]))
        #expect(try context.fetchHistory(.fetchHistory(after: current)).isEmpty)
        let counted = PersistentHistoryChangeRequest.fetchHistory(after: token)
        counted.resultType = .count
        #expect(try context.execute(counted).count == 2)
    }

    @Test(arguments: kinds)
    func deletingHistoryBeforeATokenRemovesThroughItAndExpiresOlderTokens(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let context = fixture.context()
        var tokens: [PersistentHistoryToken] = []
        for name in ["a", "b", "c"] {
            context.makeItem(name)
            try context.save()
            tokens.append(try #require(fixture.coordinator.currentPersistentHistoryToken()))
        }
        #expect(try context.execute(.deleteHistory(before: tokens[1])).count == 2)
        let left = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(left.count == 1)
        #expect(left[0].token == tokens[2])
        #expect(try context.fetchHistory(.fetchHistory(after: tokens[1])).count == 1)

        // A token from before the deleted transactions has expired; the failed fetch changes nothing.
        #expect(throws: StoreError(code: .persistentHistoryTokenExpired, message: "")) {
            try context.fetchHistory(.fetchHistory(after: tokens[0]))
        }
        #expect(try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).count == 1)
        // Numbers are not reused after a deletion.
        #expect(try context.execute(.deleteHistory(before: nil as PersistentHistoryToken?)).count == 1)
        context.makeItem("d")
        try context.save()
        let after = try context.fetchHistory(.fetchHistory(after: tokens[2]))
        #expect(after.count == 1)
        #expect(after[0].transactionNumber > left[0].transactionNumber)
    }

    @Test(arguments: kinds)
    func aFailedSaveRecordsNoTransaction(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let context = fixture.context()
        let item = context.makeItem("a", count: 1)
        try context.save()
        let other = fixture.context()
        let stale = try other.existingObject(with: item.objectID)
        _ = stale.value(forKey: "count")
        item.setValue(2, forKey: "count")
        try context.save()
        let before = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).count
        let tokenBefore = fixture.coordinator.currentPersistentHistoryToken()

        stale.setValue(3, forKey: "count")
        #expect(throws: StoreError(code: .mergeConflict, message: "")) { try other.save() }
        #expect(try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).count == before)
        #expect(fixture.coordinator.currentPersistentHistoryToken() == tokenBefore)
    }

    @Test(arguments: kinds)
    func storesWithoutTrackingRefuseHistoryRequests(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind, tracking: false)
        let context = fixture.context()
        context.makeItem("a")
        try context.save()
        #expect(!fixture.store.isTrackingPersistentHistory)
        #expect(fixture.coordinator.currentPersistentHistoryToken() == nil)
        #expect(throws: StoreError(code: .persistentHistoryNotTracked, message: "")) {
            try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        }
        let request = PersistentHistoryChangeRequest.deleteHistory(before: Date())
        request.affectedStores = [fixture.store]
        #expect(throws: StoreError(code: .persistentHistoryNotTracked, message: "")) { try context.execute(request) }
        #expect(throws: StoreError(code: .invalidFetchRequest, message: "")) {
            try context.fetchHistory(.deleteHistory(before: Date()))
        }
        #expect(try fixture.context().all("Item").count == 1)
    }

    @Test(arguments: kinds)
    func batchInsertsUpdatesAndDeletesAreRecorded(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let context = fixture.context()
        let inserted = try context.execute(
            BatchInsertRequest(
                entityName: "Item",
                objects: [
                    ["name": "x", "count": 1], ["name": "y", "count": 2],
                ]))
        #expect(inserted.count == 2)
        let update = BatchUpdateRequest(entityName: "Item")
        update.propertiesToUpdate = ["count": 9]
        _ = try context.execute(update)
        let delete = FetchRequest(entityName: "Item")
        delete.predicate = try ObjectPredicate(format: "name == 'x'")
        _ = try context.execute(BatchDeleteRequest(fetchRequest: delete))

        let transactions = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(
            transactions.map { $0.changes.map(\.changeType) } == [[.insert, .insert], [.update, .update], [.delete]])
        #expect(transactions[1].changes.allSatisfy { $0.updatedProperties == ["count"] })
        #expect(transactions[2].changes[0].tombstone?["name"] as? String == "x")
    }

    @Test(arguments: kinds)
    func mergingHistoryRefreshesAndRemovesObjectsOfAnotherContext(kind: StoreKind) throws {
        let fixture = try HistoryFixture(kind)
        let writer = fixture.context()
        let kept = writer.makeItem("kept", count: 1)
        let gone = writer.makeItem("gone", count: 1)
        try writer.save()
        let token = fixture.coordinator.currentPersistentHistoryToken()

        let reader = fixture.context()
        let readKept = try reader.existingObject(with: kept.objectID)
        let readGone = try reader.existingObject(with: gone.objectID)
        #expect(readKept.value(forKey: "count") as? Int == 1)
        kept.setValue(7, forKey: "count")
        writer.delete(gone)
        try writer.save()

        var events: [ObjectsDidChange] = []
        reader.addObserver { if case .objectsDidChange(let change) = $0 { events.append(change) } }
        let transactions = try reader.fetchHistory(.fetchHistory(after: token))
        #expect(transactions.count == 1)
        let notification = transactions[0].objectIDNotification()
        #expect(notification.updatedObjectIDs == [kept.objectID])
        #expect(notification.deletedObjectIDs == [gone.objectID])
        reader.mergeChanges(fromHistory: transactions)
        #expect(readKept.value(forKey: "count") as? Int == 7)
        #expect(reader.registeredObject(for: gone.objectID) == nil)
        #expect(events.count == 1)
        #expect(events.first?.deleted.contains(readGone) == true)
    }

    @Test(arguments: kinds.filter { $0.type != .inMemory })
    func historySurvivesReopeningTheStore(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = kind.url("history", in: folder)
        let numbers: [Int64]
        do {
            let fixture = try HistoryFixture(kind, url: url)
            let context = fixture.context(author: "first")
            context.makeItem("a")
            try context.save()
            context.makeItem("b")
            try context.save()
            numbers = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).map(
                \.transactionNumber)
        }
        let reopened = try HistoryFixture(kind, url: url)
        let context = reopened.context()
        let transactions = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(transactions.map(\.transactionNumber) == numbers)
        #expect(transactions.map(\.author) == ["first", "first"])
        #expect(
            transactions.allSatisfy {
                $0.changes.allSatisfy { $0.changedObjectID.storeIdentifier == reopened.store.identifier }
            })
        context.makeItem("c")
        try context.save()
        #expect(try context.fetchHistory(.fetchHistory(after: transactions.last)).count == 1)
    }

    @Test(arguments: kinds.filter { $0.type != .inMemory })
    func deletingHistoryOfAReadOnlyStoreFailsAndKeepsIt(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = kind.url("history", in: folder)
        do {
            let fixture = try HistoryFixture(kind, url: url)
            let context = fixture.context()
            context.makeItem("a")
            try context.save()
        }
        let readOnly = try HistoryFixture(kind, url: url, readOnly: true)
        let context = readOnly.context()
        #expect(throws: StoreError(code: .readOnlyStore, message: "")) {
            try context.execute(.deleteHistory(before: nil as PersistentHistoryToken?))
        }
        #expect(try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?)).count == 1)
    }
}

extension PersistentHistoryConformanceTests {
    /// A crash between renaming the history side file and renaming the store file leaves the side file one save
    /// ahead: on the next load the history is cut back to the store's own last transaction.
    @Test(arguments: kinds.filter { $0.type == .binary || $0.type == .xml })
    func aHistoryFileAheadOfItsStoreIsCutBackOnLoad(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = kind.url("history", in: folder)
        let kept = folder.file("kept.\(kind.fileExtension)")
        do {
            let fixture = try HistoryFixture(kind, url: url)
            let context = fixture.context()
            context.makeItem("a")
            try context.save()
            try FileManager.default.copyItem(at: url, to: kept)
            context.makeItem("b")
            try context.save()
            let sideFile = try #require((fixture.store as? AtomicStore)?.historyFileURL)
            #expect(FileManager.default.fileExists(atPath: sideFile.path))
        }
        // The store file as it was after the first save; the side file as after the second.
        try FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: kept, to: url)
        let reopened = try HistoryFixture(kind, url: url)
        let context = reopened.context()
        let transactions = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(transactions.count == 1)
        #expect(try context.all("Item").count == 1)
        context.makeItem("c")
        try context.save()
        let after = try context.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
        #expect(after.map(\.transactionNumber) == [1, 2])
    }

    @Test(arguments: kinds.filter { $0.type == .binary || $0.type == .xml })
    func aDamagedHistoryFileIsReportedAndTheStoreIsNotAdded(kind: StoreKind) throws {
        let folder = TemporaryFolder()
        let url = kind.url("history", in: folder)
        let sideFile: URL
        do {
            let fixture = try HistoryFixture(kind, url: url)
            let context = fixture.context()
            context.makeItem("a")
            try context.save()
            sideFile = try #require((fixture.store as? AtomicStore)?.historyFileURL)
        }
        try Data("not history".utf8).write(to: sideFile)
        #expect(throws: StoreError(code: .corruptFile, message: "")) { try HistoryFixture(kind, url: url) }
        #expect(try Data(contentsOf: sideFile) == Data("not history".utf8))
        // Without tracking the store opens and the side file is left alone.
        let plain = try HistoryFixture(kind, tracking: false, url: url)
        #expect(try plain.context().all("Item").count == 1)
    }
}
