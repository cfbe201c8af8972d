import Foundation

/// An error from the persistent store coordinator or one of its stores.
///
/// Compare errors by ``code``; the ``message`` says what went wrong and how to fix it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unknownStoreType, storeAlreadyAdded, storeNotFound, readOnlyStore, noStoreForEntity
            case ambiguousStore, entityNotInConfiguration, objectNotFound, mergeConflict, incompatibleModel
            case corruptFile, io, partialSave, invalidURI, invalidObjectID, unsupportedRequest, unknownConfiguration
            case foreignFile, constraintConflict, storageFull, invalidFetchRequest
            case persistentHistoryNotTracked, persistentHistoryTokenExpired, unavailable
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No store class is registered for the type.
        public static let unknownStoreType = Code(.unknownStoreType)
        /// A store for the same URL is already attached to the coordinator.
        public static let storeAlreadyAdded = Code(.storeAlreadyAdded)
        /// The store is not (or no longer) attached to the coordinator.
        public static let storeNotFound = Code(.storeNotFound)
        /// A save would change an object of a read-only store.
        public static let readOnlyStore = Code(.readOnlyStore)
        /// No attached writable store's configuration holds the entity.
        public static let noStoreForEntity = Code(.noStoreForEntity)
        /// Several writable stores could hold a new object and strict routing is on.
        public static let ambiguousStore = Code(.ambiguousStore)
        /// An object was assigned to a store whose configuration lacks its entity.
        public static let entityNotInConfiguration = Code(.entityNotInConfiguration)
        /// The object does not exist in its store (deleted, or its store was removed).
        public static let objectNotFound = Code(.objectNotFound)
        /// Objects were changed in the store since this context read them (optimistic locking);
        /// ``StoreError/mergeConflicts`` describes them when a context's save reports it.
        public static let mergeConflict = Code(.mergeConflict)
        /// The store was written with a model whose version hashes differ.
        public static let incompatibleModel = Code(.incompatibleModel)
        /// The store's file is damaged, truncated or not of the expected format.
        public static let corruptFile = Code(.corruptFile)
        /// The file is a valid file of another kind than the store type expects.
        public static let foreignFile = Code(.foreignFile)
        /// Reading or writing the store's file failed.
        public static let io = Code(.io)
        /// Writing the store's file failed because its file system is full or the user's disk quota is used up
        /// (`ENOSPC`, `EDQUOT`, SQLite's `SQLITE_FULL`). Nothing of the failed save was written; the store is as it
        /// was, and a save succeeds again once space is freed.
        public static let storageFull = Code(.storageFull)
        /// A save touching several stores committed some of them and then failed.
        public static let partialSave = Code(.partialSave)
        /// A URI is not a managed object ID of this coordinator.
        public static let invalidURI = Code(.invalidURI)
        /// An object ID belongs to no store of this coordinator, or is temporary where a permanent one is needed.
        public static let invalidObjectID = Code(.invalidObjectID)
        /// The store cannot execute this kind of request.
        public static let unsupportedRequest = Code(.unsupportedRequest)
        /// The model has no configuration with that name.
        public static let unknownConfiguration = Code(.unknownConfiguration)
        /// Objects would share the values of a uniqueness constraint, with each other or with a saved object (Core
        /// Data's `NSManagedObjectConstraintMergeError`); ``StoreError/constraintConflicts`` lists them.
        public static let constraintConflict = Code(.constraintConflict)
        /// A fetch request's settings do not fit together or do not fit the call: ``FetchRequest/resultType`` other
        /// than ``FetchRequestResultType/managedObject`` passed to `fetch(_:)`, an unknown property to fetch or group
        /// by, a fetched attribute missing from ``FetchRequest/propertiesToGroupBy`` beside aggregates.
        public static let invalidFetchRequest = Code(.invalidFetchRequest)
        /// A persistent history request reached a store that was added without
        /// ``PersistentStoreOptionKey/persistentHistoryTracking`` (or whose type keeps no history).
        public static let persistentHistoryNotTracked = Code(.persistentHistoryNotTracked)
        /// A history fetch's token names transactions that `deleteHistory(before:)` removed since (Core Data's
        /// `NSPersistentHistoryTokenExpiredError`): fetch from `nil` and rebuild what the token stood for.
        public static let persistentHistoryTokenExpired = Code(.persistentHistoryTokenExpired)
        /// The store's server cannot be reached (a store on a database server: the server is down, restarting or
        /// unreachable): the request had no effect, nothing of a save was written. Try again once
        /// ``PersistentStore/connectionState`` says the store is connected; the store reconnects by itself.
        public static let unavailable = Code(.unavailable)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong and how to fix it.
    public var message: String
    /// The store, entity or object involved.
    public var context: ErrorContext
    /// Objects involved: conflicting objects for a merge conflict, refused objects for a read-only store.
    public var objectIDs: [ManagedObjectID]
    /// For ``Code/ambiguousStore``: the candidate stores' URLs (or identifiers for stores without a URL).
    public var candidates: [String]
    /// For ``Code/constraintConflict``: each set of objects that would share a uniqueness constraint's values.
    public var constraintConflicts: [ConstraintConflict] = []
    /// For ``Code/mergeConflict`` from a context's save: each object that changed in its store since the context
    /// read it, with the context's, the cached and the store's values.
    public var mergeConflicts: [MergeConflict] = []
    private var underlying: UnderlyingError?

    /// The error that caused this one, if any.
    public var cause: (any Error)? { underlying?.error }

    /// Creates an error.
    public init(code: Code, message: String, context: ErrorContext = ErrorContext(), objectIDs: [ManagedObjectID] = [],
                candidates: [String] = [], cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.context = context
        self.objectIDs = objectIDs
        self.candidates = candidates
        self.underlying = cause.map(UnderlyingError.init)
    }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let where_ = context.description
        var text = "StoreError(\(code)): \(message)" + (where_.isEmpty ? "" : " [\(where_)]")
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}
