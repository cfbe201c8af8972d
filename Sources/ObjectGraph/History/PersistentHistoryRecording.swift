import Foundation

/// What a save asks a store to record in its persistent history: who saved, when, and per object what the store's
/// own ``StoreChanges`` cannot tell (which properties of an updated object changed, the tombstone of a deleted one).
///
/// The coordinator hands it to each store that tracks history as ``StoreChanges/history``; the store writes it in
/// the same transaction as the changes, so a failed save leaves no history behind.
public struct PersistentHistoryRecording: Sendable {
    /// When the save ran.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public var contextName: String?
    /// The names of the changed properties of each updated object; objects missing here are recorded with `nil`.
    public var updatedProperties: [ManagedObjectID: Set<String>]
    /// The preserved values of each deleted object whose entity preserves some.
    public var tombstones: [ManagedObjectID: [String: any Sendable]]

    /// Creates a recording.
    public init(
        timestamp: Date = Date(), author: String? = nil, contextName: String? = nil,
        updatedProperties: [ManagedObjectID: Set<String>] = [:],
        tombstones: [ManagedObjectID: [String: any Sendable]] = [:]
    ) {
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.updatedProperties = updatedProperties
        self.tombstones = tombstones
    }

    /// The history changes of a save, numbered from `firstChangeID`: inserts, then updates, then deletes, each in
    /// the order of `changes`.
    public func historyChanges(of changes: StoreChanges, firstChangeID: Int64) -> [PersistentHistoryChange] {
        var result: [PersistentHistoryChange] = []
        result.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count)
        var next = firstChangeID
        func append(
            _ type: PersistentHistoryChangeType, _ id: ManagedObjectID, _ updated: Set<String>?,
            _ tombstone: [String: any Sendable]?
        ) {
            result.append(
                PersistentHistoryChange(
                    changeID: next, changeType: type, changedObjectID: id,
                    updatedProperties: updated, tombstone: tombstone))
            next += 1
        }
        for record in changes.inserted { append(.insert, record.objectID, nil, nil) }
        for record in changes.updated { append(.update, record.objectID, updatedProperties[record.objectID], nil) }
        for (id, _) in changes.deleted { append(.delete, id, nil, tombstones[id]) }
        return result
    }
}

/// Which transactions a store's ``PersistentStore/fetchHistory(_:)`` returns.
public struct PersistentHistoryQuery: Sendable, Hashable {
    /// Only transactions numbered after this one; `nil` for the oldest kept.
    public var afterTransactionNumber: Int64?
    /// Only transactions whose timestamp is later than this.
    public var afterDate: Date?
    /// At most this many transactions (the oldest first); 0 for all.
    public var limit: Int

    /// Creates a query.
    public init(afterTransactionNumber: Int64? = nil, afterDate: Date? = nil, limit: Int = 0) {
        self.afterTransactionNumber = afterTransactionNumber
        self.afterDate = afterDate
        self.limit = limit
    }
}

/// Which transactions a store's ``PersistentStore/deleteHistory(_:)`` removes.
public enum PersistentHistoryCutoff: Sendable, Hashable {
    /// Transactions up to and including this number.
    case throughTransactionNumber(Int64)
    /// Transactions whose timestamp is earlier than this.
    case before(Date)
    /// Every transaction.
    case all
}

extension PersistentStore {
    /// The error of a history fetch after a transaction number the store's history no longer reaches.
    public func historyTokenExpired(after number: Int64, deletedThrough: Int64) -> StoreError {
        StoreError(
            code: .persistentHistoryTokenExpired,
            message: "The history token names transaction \(number), but transactions up to \(deletedThrough) "
                + "were deleted since; fetch the history from the start (a nil token) instead.",
            context: ErrorContext(storeURL: url))
    }
}
