import Foundation

/// A store's persistent history kept in memory, as the atomic stores keep it (the file stores write it to a side
/// file beside the store): transactions in order, the numbers used so far and how far history was deleted.
///
/// A value: a save appends to a copy, and the store swaps the copy in when the save commits.
public struct PersistentHistoryLog: Sendable {
    /// The kept transactions, oldest first.
    public private(set) var transactions: [PersistentHistoryTransaction] = []
    /// The number of the last transaction recorded (kept or deleted); 0 before the first.
    public private(set) var lastTransactionNumber: Int64 = 0
    /// The number of the last change recorded; 0 before the first.
    public private(set) var lastChangeID: Int64 = 0
    /// The number of the last transaction deleted; 0 when none was.
    public private(set) var deletedThrough: Int64 = 0

    /// An empty log.
    public init() {}

    /// Records a save as the next transaction of the store `storeID`.
    public mutating func append(_ changes: StoreChanges, recording: PersistentHistoryRecording, storeID: String) {
        let historyChanges = recording.historyChanges(of: changes, firstChangeID: lastChangeID + 1)
        lastChangeID += Int64(historyChanges.count)
        lastTransactionNumber += 1
        transactions.append(
            PersistentHistoryTransaction(
                transactionNumber: lastTransactionNumber, timestamp: recording.timestamp, author: recording.author,
                contextName: recording.contextName, storeID: storeID, changes: historyChanges))
    }

    /// The transactions a query selects, oldest first.
    ///
    /// - Throws: ``StoreError/Code/persistentHistoryTokenExpired`` (made by `expired`) when the query starts
    ///   before transactions that were deleted.
    public func transactions(
        matching query: PersistentHistoryQuery,
        expired: (Int64, Int64) -> StoreError
    ) throws -> [PersistentHistoryTransaction] {
        if let after = query.afterTransactionNumber, after < deletedThrough { throw expired(after, deletedThrough) }
        var start = transactions.startIndex
        if let after = query.afterTransactionNumber {
            start = transactions.partitionPoint { $0.transactionNumber > after }
        }
        let candidates = transactions[start...]
        let dated = query.afterDate.map { date in candidates.filter { $0.timestamp > date } } ?? Array(candidates)
        return query.limit > 0 ? Array(dated.prefix(query.limit)) : dated
    }

    /// Deletes transactions; returns how many.
    public mutating func delete(_ cutoff: PersistentHistoryCutoff) -> Int {
        let before = transactions.count
        switch cutoff {
        case .throughTransactionNumber(let number):
            transactions.removeAll { $0.transactionNumber <= number }
        case .before(let date):
            transactions.removeAll { $0.timestamp < date }
        case .all:
            transactions.removeAll()
        }
        let removed = before - transactions.count
        if removed > 0 {
            deletedThrough = max(
                deletedThrough, (transactions.first?.transactionNumber ?? lastTransactionNumber + 1) - 1)
        }
        return removed
    }

    /// Drops transactions numbered after `number` (a side file written ahead of a store file whose rename never
    /// happened).
    public mutating func truncate(after number: Int64) {
        guard lastTransactionNumber > number else { return }
        transactions.removeAll { $0.transactionNumber > number }
        // The dropped changes' IDs stay used (a gap), so that no ID is ever given twice.
        lastTransactionNumber = number
    }
}

extension Collection {
    /// The index of the first element for which `belongs` holds, in a collection where it holds for a suffix.
    fileprivate func partitionPoint(_ belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}

// MARK: Side files

extension PersistentHistoryLog {
    /// The log's file form (JSON), for ``init(fileContents:storeID:)``.
    public func fileContents() throws -> Data {
        let file = LogFile(
            lastTransactionNumber: lastTransactionNumber, lastChangeID: lastChangeID, deletedThrough: deletedThrough,
            transactions: transactions.map { transaction in
                LogFile.Transaction(
                    number: transaction.transactionNumber,
                    timestamp: transaction.timestamp.timeIntervalSinceReferenceDate,
                    author: transaction.author, contextName: transaction.contextName,
                    changes: transaction.changes.map { change in
                        LogFile.Change(
                            id: change.changeID, type: change.changeType.rawValue,
                            entity: change.changedObjectID.entityName, key: change.changedObjectID.referenceKey,
                            updated: change.updatedProperties.map { $0.sorted() },
                            tombstone: change.tombstone.map(PersistentHistoryValueCoding.tagged))
                    })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(file)
    }

    /// Reads a log's ``fileContents()``; object IDs are made for the store `storeID`.
    ///
    /// - Throws: a decoding error for contents that are not such a file.
    public init(fileContents data: Data, storeID: String) throws {
        let file = try JSONDecoder().decode(LogFile.self, from: data)
        lastTransactionNumber = file.lastTransactionNumber
        lastChangeID = file.lastChangeID
        deletedThrough = file.deletedThrough
        transactions = try file.transactions.map { transaction in
            PersistentHistoryTransaction(
                transactionNumber: transaction.number,
                timestamp: Date(timeIntervalSinceReferenceDate: transaction.timestamp), author: transaction.author,
                contextName: transaction.contextName, storeID: storeID,
                changes: try transaction.changes.map { change in
                    guard let type = PersistentHistoryChangeType(rawValue: change.type) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "change type"))
                    }
                    return PersistentHistoryChange(
                        changeID: change.id, changeType: type,
                        changedObjectID: ManagedObjectID(
                            entityName: change.entity, storeIdentifier: storeID,
                            referenceKey: change.key),
                        updatedProperties: change.updated.map(Set.init),
                        tombstone: change.tombstone.map(PersistentHistoryValueCoding.values))
                })
        }
    }

    private struct LogFile: Codable {
        struct Change: Codable {
            var id: Int64
            var type: Int
            var entity: String
            var key: Int64
            var updated: [String]?
            var tombstone: [String: PersistentHistoryValueCoding.Tagged]?
        }
        struct Transaction: Codable {
            var number: Int64
            var timestamp: Double
            var author: String?
            var contextName: String?
            var changes: [Change]
        }
        var lastTransactionNumber: Int64
        var lastChangeID: Int64
        var deletedThrough: Int64
        var transactions: [Transaction]
    }
}
