import Foundation

extension PersistentStoreCoordinator {
    /// The token of the last transaction of each store that tracks history (Core Data's
    /// `currentPersistentHistoryToken(fromStores:)`); `nil` when none of them does, or a store cannot be read.
    ///
    /// - Parameter stores: the stores to ask; `nil` for every attached store.
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) -> PersistentHistoryToken? {
        performReading {
            let asked = (stores ?? persistentStores).filter(\.isTrackingPersistentHistory)
            guard !asked.isEmpty else { return nil }
            var numbers: [String: Int64] = [:]
            for store in asked {
                guard let number = try? store.serializingReads({ try store.lastHistoryTransactionNumber() }) else {
                    return nil
                }
                numbers[store.identifier] = number
            }
            return PersistentHistoryToken(transactionNumbers: numbers)
        }
    }

    /// The transactions a fetch request selects, across its stores, ordered by timestamp (then store and number).
    ///
    /// - Throws: ``StoreError/Code/invalidFetchRequest`` for a delete request;
    ///   ``StoreError/Code/persistentHistoryNotTracked`` when a store of ``PersistentHistoryChangeRequest/affectedStores``
    ///   (or, without them, every attached store) keeps no history; ``StoreError/Code/persistentHistoryTokenExpired``;
    ///   ``StoreError/Code/storeNotFound`` for an affected store that is not attached; the stores' read errors.
    public func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> [PersistentHistoryTransaction] {
        let query: (PersistentStore) -> PersistentHistoryQuery
        switch request.operation {
        case .fetchAfterToken(let token):
            query = { store in
                PersistentHistoryQuery(
                    afterTransactionNumber: token?.transactionNumber(forStoreIdentifier: store.identifier),
                    limit: request.fetchLimit)
            }
        case .fetchAfterDate(let date):
            query = { _ in PersistentHistoryQuery(afterDate: date, limit: request.fetchLimit) }
        case .deleteBeforeToken, .deleteBeforeDate:
            throw StoreError(
                code: .invalidFetchRequest,
                message: "A history delete request cannot be fetched; run it with execute(_:).")
        }
        return try performReading {
            var transactions: [PersistentHistoryTransaction] = []
            for store in try historyStores(request) {
                transactions += try store.serializingReads { try store.fetchHistory(query(store)) }
            }
            transactions.sort {
                ($0.timestamp, $0.storeID, $0.transactionNumber) < ($1.timestamp, $1.storeID, $1.transactionNumber)
            }
            if request.fetchLimit > 0, transactions.count > request.fetchLimit {
                transactions.removeLast(transactions.count - request.fetchLimit)
            }
            return transactions
        }
    }

    /// Runs a history request: a fetch (see ``fetchHistory(_:)``) or a delete, which removes the transactions of
    /// each store durably and alone (as a save runs).
    ///
    /// - Throws: the errors of ``fetchHistory(_:)``; for a delete, ``StoreError/Code/readOnlyStore`` and the stores'
    ///   write errors. A store whose delete fails keeps its history; stores before it in the request's order keep
    ///   the deletion.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let cutoff: (PersistentStore) -> PersistentHistoryCutoff?
        switch request.operation {
        case .fetchAfterToken, .fetchAfterDate:
            let transactions = try fetchHistory(request)
            switch request.resultType {
            case .transactionsAndChanges:
                return PersistentHistoryResult(
                    resultType: request.resultType, transactions: transactions,
                    count: transactions.count)
            case .transactionsOnly:
                let bare = transactions.map {
                    PersistentHistoryTransaction(
                        transactionNumber: $0.transactionNumber, timestamp: $0.timestamp,
                        author: $0.author, contextName: $0.contextName, storeID: $0.storeID,
                        changes: [])
                }
                return PersistentHistoryResult(resultType: request.resultType, transactions: bare, count: bare.count)
            case .count, .statusOnly:
                return PersistentHistoryResult(
                    resultType: request.resultType, transactions: nil,
                    count: transactions.count)
            }
        case .deleteBeforeToken(let token?):
            cutoff = { store in
                token.transactionNumber(forStoreIdentifier: store.identifier).map { .throughTransactionNumber($0) }
            }
        case .deleteBeforeToken(nil):
            cutoff = { _ in .all }
        case .deleteBeforeDate(let date):
            cutoff = { _ in .before(date) }
        }
        return try performAndWait {
            var deleted = 0
            for store in try historyStores(request) {
                guard let storeCutoff = cutoff(store) else { continue }
                deleted += try store.deleteHistory(storeCutoff)
            }
            return PersistentHistoryResult(resultType: request.resultType, transactions: nil, count: deleted)
        }
    }

    /// The stores a history request reaches.
    private func historyStores(_ request: PersistentHistoryChangeRequest) throws -> [PersistentStore] {
        let attached = persistentStores
        guard let affected = request.affectedStores else {
            let tracking = attached.filter(\.isTrackingPersistentHistory)
            guard !tracking.isEmpty else {
                throw StoreError(
                    code: .persistentHistoryNotTracked,
                    message: "No attached store tracks persistent history; add the store with the "
                        + ".persistentHistoryTracking option.")
            }
            return tracking
        }
        for store in affected {
            guard attached.contains(where: { $0 === store }) else {
                throw StoreError(
                    code: .storeNotFound, message: "The store is not attached to this coordinator.",
                    context: ErrorContext(storeURL: store.url))
            }
            guard store.isTrackingPersistentHistory else {
                throw StoreError(
                    code: .persistentHistoryNotTracked,
                    message: "The store \(Self.storeName(store)) does not track persistent history; add "
                        + "it with the .persistentHistoryTracking option.",
                    context: ErrorContext(storeURL: store.url))
            }
        }
        return affected
    }

    /// A store's changes with what its history records, for stores that track history and were not told by the
    /// saving context (batch inserts): the time, and no author.
    func withHistory(_ changes: StoreChanges, for store: PersistentStore) -> StoreChanges {
        guard store.isTrackingPersistentHistory, changes.history == nil else { return changes }
        var changes = changes
        changes.history = PersistentHistoryRecording()
        return changes
    }
}
