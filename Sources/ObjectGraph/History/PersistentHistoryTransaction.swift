import Foundation

/// One save as a store's persistent history keeps it (Core Data's `NSPersistentHistoryTransaction`).
///
/// Values, not live objects: transactions are `Sendable` and may be handed to any context or thread. A save that
/// touches several stores that track history is one transaction in each of them.
public struct PersistentHistoryTransaction: Sendable, Identifiable {
    /// The transaction's number in its store: increasing, never reused (Core Data's `transactionNumber`).
    public let transactionNumber: Int64
    /// When the save committed.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, if it set one.
    public let author: String?
    /// The saving context's ``ManagedObjectContext/name``, if it had one.
    public let contextName: String?
    /// The identifier (UUID) of the store the transaction belongs to.
    public let storeID: String
    /// What the save changed in the store, in the order the store recorded it.
    public let changes: [PersistentHistoryChange]

    /// Creates a transaction; stores make them when they read their history.
    public init(
        transactionNumber: Int64, timestamp: Date, author: String?, contextName: String?, storeID: String,
        changes: [PersistentHistoryChange]
    ) {
        self.transactionNumber = transactionNumber
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.storeID = storeID
        self.changes = changes
    }

    /// The token that covers this transaction and the ones before it in its store.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(transactionNumbers: [storeID: transactionNumber])
    }

    /// The store and transaction number.
    public var id: String { "\(storeID):\(transactionNumber)" }

    /// The transaction as the object IDs a save event carries, for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)`` (Core Data's `objectIDNotification()`).
    public func objectIDNotification() -> ContextDidSave {
        var event = ContextDidSave()
        for change in changes {
            switch change.changeType {
            case .insert: event.insertedObjectIDs.insert(change.changedObjectID)
            case .update: event.updatedObjectIDs.insert(change.changedObjectID)
            case .delete: event.deletedObjectIDs.insert(change.changedObjectID)
            }
        }
        // An object inserted and changed or deleted by later changes of the same transaction counts once, as its
        // last change.
        event.updatedObjectIDs.subtract(event.deletedObjectIDs)
        event.insertedObjectIDs.subtract(event.deletedObjectIDs)
        return event
    }
}

/// How a ``PersistentHistoryChange`` changed its object (Core Data's `NSPersistentHistoryChangeType`).
public enum PersistentHistoryChangeType: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The object was inserted.
    case insert = 0
    /// Saved values of the object changed.
    case update = 1
    /// The object was deleted.
    case delete = 2

    public var description: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

/// One object's change in a ``PersistentHistoryTransaction`` (Core Data's `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable {
    /// The change's number in its store: increasing, never reused.
    public let changeID: Int64
    /// Insert, update or delete.
    public let changeType: PersistentHistoryChangeType
    /// The object's permanent ID.
    public let changedObjectID: ManagedObjectID
    /// For an update, the names of the saved properties (attributes and relationships) that changed; `nil` for
    /// inserts and deletes, and for updates a batch request made without a context.
    public let updatedProperties: Set<String>?
    /// For a delete, the last values of the entity's attributes marked
    /// ``AttributeDescription/preservesValueInHistoryOnDeletion`` (nil values left out); `nil` for inserts and
    /// updates, and for deletes of entities that preserve nothing.
    public let tombstone: [String: any Sendable]?

    /// Creates a change; stores make them when they read their history.
    public init(
        changeID: Int64, changeType: PersistentHistoryChangeType, changedObjectID: ManagedObjectID,
        updatedProperties: Set<String>? = nil, tombstone: [String: any Sendable]? = nil
    ) {
        self.changeID = changeID
        self.changeType = changeType
        self.changedObjectID = changedObjectID
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}
