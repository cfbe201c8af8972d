import Foundation

/// A request that reads or deletes persistent history (Core Data's `NSPersistentHistoryChangeRequest`).
///
/// Run a fetch with ``ManagedObjectContext/fetchHistory(_:)`` (or ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``)
/// and a delete with ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``:
///
/// ```swift
/// let transactions = try context.fetchHistory(.fetchHistory(after: lastToken))
/// context.mergeChanges(fromHistory: transactions)
/// lastToken = transactions.last?.token ?? lastToken
/// try context.execute(.deleteHistory(before: lastToken))
/// ```
///
/// The request reaches ``affectedStores``, or else every attached store that tracks history.
public final class PersistentHistoryChangeRequest: @unchecked Sendable {  // configured before use, then only read
    /// What the request does.
    public enum Operation: Sendable, Hashable {
        /// Fetch transactions after a token (`nil`: from the oldest kept).
        case fetchAfterToken(PersistentHistoryToken?)
        /// Fetch transactions whose timestamp is later than a date.
        case fetchAfterDate(Date)
        /// Delete transactions up to and including a token's (`nil`: all of them).
        case deleteBeforeToken(PersistentHistoryToken?)
        /// Delete transactions whose timestamp is earlier than a date.
        case deleteBeforeDate(Date)

        /// Whether the operation deletes.
        public var isDelete: Bool {
            switch self {
            case .deleteBeforeToken, .deleteBeforeDate: true
            case .fetchAfterToken, .fetchAfterDate: false
            }
        }
    }

    /// What ``PersistentHistoryResult`` carries.
    public enum ResultType: Sendable, Hashable {
        /// Transactions with their changes (the default).
        case transactionsAndChanges
        /// Transactions without their changes.
        case transactionsOnly
        /// The number of transactions only.
        case count
        /// Nothing but success.
        case statusOnly
    }

    /// What the request does.
    public let operation: Operation
    /// What the result carries; ``ResultType/transactionsAndChanges`` by default.
    public var resultType: ResultType = .transactionsAndChanges
    /// At most this many transactions are fetched (the oldest first); 0, the default, for all.
    public var fetchLimit = 0
    /// The stores to read or delete from; `nil`, the default, for every attached store that tracks history.
    public var affectedStores: [PersistentStore]?

    /// A request of an operation.
    public init(operation: Operation) {
        self.operation = operation
    }

    /// Fetches the transactions after a token; `nil` fetches the whole history kept.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .fetchAfterToken(token))
    }

    /// Fetches the transactions committed after a date.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .fetchAfterDate(date))
    }

    /// Fetches the transactions after one transaction (of its store); `nil` fetches the whole history kept.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest
    {
        fetchHistory(after: transaction?.token)
    }

    /// Deletes the transactions up to and including a token's; `nil` deletes the whole history.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .deleteBeforeToken(token))
    }

    /// Deletes the transactions committed before a date.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(operation: .deleteBeforeDate(date))
    }

    /// Deletes a transaction and those before it (of its store); `nil` deletes the whole history.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?)
        -> PersistentHistoryChangeRequest
    {
        deleteHistory(before: transaction?.token)
    }
}

/// What a ``PersistentHistoryChangeRequest`` did (Core Data's `NSPersistentHistoryResult`).
public struct PersistentHistoryResult: Sendable {
    /// What the request asked for.
    public var resultType: PersistentHistoryChangeRequest.ResultType
    /// The fetched transactions (without changes for ``PersistentHistoryChangeRequest/ResultType/transactionsOnly``);
    /// `nil` for deletes and for the count and status result types.
    public var transactions: [PersistentHistoryTransaction]?
    /// How many transactions were fetched or deleted.
    public var count: Int
}
