import Foundation
import Synchronization

/// A persistent store: one file (or memory area) of objects, attached to a coordinator.
///
/// Stores come in two families, as in Core Data: ``AtomicStore`` (the whole graph is loaded and written as one
/// unit; the in-memory, XML and binary stores and custom formats) and ``IncrementalStore`` (the store executes
/// fetches and saves itself; the SQLite store).
///
/// The coordinator never runs a save, a load or a metadata change on a store while another request of any kind
/// runs on it. Reads (``fetch(_:)``, ``count(_:)``, ``record(for:)``, ``records(for:)``) come one at a time
/// unless the store class says it can answer several at once (``allowsConcurrentReads``).
///
/// Subclasses override the request methods; the defaults throw ``StoreError/Code/unsupportedRequest``.
open class PersistentStore: @unchecked Sendable {  // see PersistentStore
    /// The store's type.
    public let type: PersistentStoreType
    /// The configuration whose entities the store holds; `nil` holds every entity.
    public let configurationName: String?
    /// The store's location; `nil` for stores that live only in memory.
    public internal(set) var url: URL?
    /// The options the store was added with.
    public let options: PersistentStoreOptions
    /// The model of the coordinator the store belongs to.
    public let model: ManagedObjectModel
    /// The store's metadata, with its UUID and the model's version hashes.
    public var metadata: StoreMetadata {
        didSet { identifier = metadata.storeUUID ?? "" }
    }
    /// Whether saves that change the store's objects are refused.
    public internal(set) var isReadOnly: Bool

    /// The store's identifier: the UUID kept in its metadata.
    public private(set) var identifier = "" {
        didSet {
            guard attachments.load(ordering: .acquiring) > 0 else { return }
            Self.attachedIdentifierChanges.add(1, ordering: .releasing)
        }
    }
    /// How many coordinators the store is attached to (coordinators count themselves in and out).
    package let attachments = Atomic<Int>(0)
    /// How many times an attached store's identifier changed, in the whole process: coordinators index their
    /// stores by identifier and make the index again when this moved.
    package static let attachedIdentifierChanges = Atomic<Int>(0)
    /// A number no other store object of this process has (unlike ``identifier``, which a replaced file keeps):
    /// for caches of what a particular store object holds.
    public let instanceNumber = StoreInstanceNumbers.next()

    /// Creates a store. Subclasses do no I/O here: ``loadMetadata()`` and ``load()`` follow.
    ///
    /// - Parameters:
    ///   - model: the coordinator's (frozen) model.
    ///   - configurationName: the configuration whose entities the store holds.
    ///   - url: the store's file, if it has one.
    ///   - options: the options given to `addPersistentStore`.
    public required init(model: ManagedObjectModel, configurationName: String?, url: URL?,
                         options: PersistentStoreOptions) throws {
        self.type = Self.storeType
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = options.flag(.readOnly)
        self.metadata = StoreMetadata()
    }

    /// The type the store class registers as; subclasses override it.
    open class var storeType: PersistentStoreType { .inMemory }

    /// Whether a file that starts with these bytes looks like one of this store class's files.
    ///
    /// Sniffing only, by content and never by file name: a `true` answer does not mean the file is valid, and
    /// nothing is read but `prefix`. Each store type with files overrides it (the binary store's magic, the SQLite
    /// header, the XML store's `<database>` root, a schedule format's shape); the default, for stores without a file
    /// format, is `false`.
    /// - Parameter prefix: the file's first bytes; pass at least the first 4 KiB.
    open class func canOpen(prefix: Data) -> Bool { false }

    /// Reads the store's metadata (its UUID and the model hashes); a new store makes fresh metadata.
    ///
    /// The default makes fresh metadata with a new UUID.
    open func loadMetadata() throws {
        metadata = freshMetadata()
    }

    /// Metadata for a new store: a new UUID, the store type and this model's version hashes.
    public func freshMetadata() -> StoreMetadata {
        var metadata = StoreMetadata()
        metadata.storeUUID = UUID().uuidString
        metadata.storeType = type.rawValue
        metadata.modelVersionHashes = modelVersionHashes()
        return metadata
    }

    /// The version hashes of the entities the store's configuration holds.
    public func modelVersionHashes() -> [String: Data] {
        let entities = model.entities(forConfigurationName: configurationName) ?? model.entities
        return Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
    }

    /// Whether the coordinator may call the store's read methods from several threads at once.
    ///
    /// The default, `false`, has the coordinator call them one at a time. A store whose reads change none of its
    /// state, or guard what they change (a cache), overrides it with `true`. Saves and loads never overlap reads
    /// either way.
    open class var allowsConcurrentReads: Bool { false }

    /// Serializes reads for stores that do not allow concurrent ones.
    private let readLock = Lock(recursive: true)

    /// Runs one of the store's reads: at once, or, when the store does not allow concurrent reads, after the
    /// reads under way on other threads.
    func serializingReads<T>(_ body: () throws -> T) rethrows -> T {
        if Self.allowsConcurrentReads { return try body() }
        readLock.lock()
        defer { readLock.unlock() }
        return try body()
    }

    /// Runs one of the store's reads if that needs no waiting for another thread's read; otherwise nil.
    func serializingReadsIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        if Self.allowsConcurrentReads { return try body() }
        guard readLock.tryLock() else { return nil }
        defer { readLock.unlock() }
        return try body()
    }

    /// Loads the store's contents. Called once, after ``loadMetadata()``, when the store is added.
    open func load() throws {}

    /// Called after the coordinator removed the store; release files and memory here.
    open func didRemove() {}

    /// Whether the store's configuration holds the entity.
    public func holds(entityNamed name: String) -> Bool {
        model.configuration(configurationName, contains: name)
    }

    // MARK: Requests

    /// The objects matching a request, sorted by its sort keys and then by object ID, at most `limit` of them.
    open func fetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        throw unsupported("fetch")
    }

    /// How many objects match a request (ignoring its limit).
    open func count(_ request: StoreFetchRequest) throws -> Int {
        try fetch(StoreFetchRequest(entity: request.entity, entityNames: request.entityNames,
                                    predicate: request.predicate, sortKeys: [], limit: 0, includesValues: false)).count
    }

    /// The groups and partial aggregates of a grouped fetch, computed by the store (SQL's `GROUP BY`), or `nil`
    /// when the store leaves it to the coordinator, which then evaluates it in memory over the store's objects.
    ///
    /// The default returns `nil`. Stores that answer must match the in-memory evaluation: groups by equal values
    /// (nil is a value), counts of non-nil values, sums as the predicate language adds numbers.
    open func aggregate(_ request: StoreAggregateRequest) throws -> [StoreAggregateRow]? { nil }

    /// The record of one object, or `nil` if the store does not hold it (any more).
    open func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        throw unsupported("record lookup")
    }

    /// The records of several objects at once; objects the store does not hold (any more) are left out.
    ///
    /// Contexts call it to fill a batch of faults from a fetch with ``FetchRequest/fetchBatchSize``. The default
    /// calls ``record(for:)`` for each ID; incremental stores override it to read the batch with one query.
    /// - Returns: the records, in no particular order.
    open func records(for objectIDs: [ManagedObjectID]) throws -> [StoreRecord] {
        try objectIDs.compactMap { try record(for: $0) }
    }

    /// The records of several objects without the destinations of their to-many relationships (those keys absent),
    /// or `nil` when the store reads them as cheaply together (the default): the coordinator then calls
    /// ``records(for:)``.
    ///
    /// Contexts call it for the destinations of a prefetched relationship
    /// (``FetchRequest/relationshipKeyPathsForPrefetching``) whose own to-many relationships no key path follows:
    /// a prefetched room's list of sessions is mostly never read, and an incremental store lists it with a query
    /// of its own. An object filled from such a record reads a list through ``record(for:)`` when it is first used.
    /// - Returns: the records, in no particular order; objects the store does not hold (any more) are left out.
    open func recordsWithoutToManyLists(for objectIDs: [ManagedObjectID]) throws -> [StoreRecord]? {
        nil
    }

    /// New, unused reference keys for objects of an entity (the `N` of `pN` in URIs).
    open func newReferenceKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        throw unsupported("new object IDs")
    }

    /// The first phase of a save: checks versions, writes everything, makes nothing visible yet.
    ///
    /// - Throws: ``StoreError/Code/mergeConflict`` listing the objects whose stored version differs from the one
    ///   in `changes`; the store is then unchanged.
    open func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        throw unsupported("save")
    }

    /// A number that changes whenever the store's records change, by this process or another, for caches of
    /// results; nil (the default) when the store cannot tell, and nothing it answers is then kept.
    ///
    /// Called as a read (see ``allowsConcurrentReads``). Atomic stores answer their load and save count; the SQLite
    /// store its own commits and SQLite's `data_version`, which other connections' commits change.
    open func contentToken() throws -> UInt64? { nil }

    /// Every record in the store (used by migration).
    open func allRecords() throws -> [StoreRecord] {
        throw unsupported("listing all records")
    }

    /// Makes metadata changes durable; the default does nothing (atomic stores write metadata with the next save).
    open func saveMetadata() throws {}

    // MARK: Persistent history

    /// Whether the store class can keep a persistent history (see
    /// ``PersistentStoreOptionKey/persistentHistoryTracking``); the default is `false`.
    open class var supportsPersistentHistory: Bool { false }

    /// Whether the store records each save in its persistent history: its class supports it and the store was
    /// added with ``PersistentStoreOptionKey/persistentHistoryTracking``.
    public var isTrackingPersistentHistory: Bool {
        Self.supportsPersistentHistory && options.flag(.persistentHistoryTracking)
    }

    /// Gets the store's history ready after ``PersistentStore/load()``: reads it, or creates where it goes. Called once when a store
    /// that tracks history is added; the default does nothing.
    open func loadHistory() throws {}

    /// The transactions of the store's history a query selects, oldest first. Called as a read.
    ///
    /// Stores that track history override it; they record each save from ``StoreChanges/history`` in
    /// ``prepareSave(_:)``, in the same transaction as the save.
    /// - Throws: ``StoreError/Code/persistentHistoryTokenExpired`` when the query starts before deleted
    ///   transactions; the default throws ``StoreError/Code/unsupportedRequest``.
    open func fetchHistory(_ query: PersistentHistoryQuery) throws -> [PersistentHistoryTransaction] {
        throw unsupported("persistent history")
    }

    /// Deletes transactions of the store's history, durably; returns how many. Called as a write.
    open func deleteHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        throw unsupported("persistent history")
    }

    /// The number of the store's last history transaction (0 before the first). Called as a read.
    open func lastHistoryTransactionNumber() throws -> Int64 {
        throw unsupported("persistent history")
    }

    /// A number that changes when another process (or another coordinator) commits to the store, and only then;
    /// nil (the default) when the store cannot tell. The coordinator's remote-change events compare it. Called as
    /// a read.
    open func externalChangeCount() throws -> UInt64? { nil }

    /// The remote changes the store announces by itself, from now on, for stores that are told of other
    /// processes' commits (the PostgreSQL store `LISTEN`s) rather than polled; `nil` (the default) for stores that
    /// cannot announce, which ``PersistentStoreCoordinator/remoteChanges(pollingInterval:)`` polls through
    /// ``externalChangeCount()`` instead. Each call makes a new stream; it ends when the store is removed.
    open func remoteChangeAnnouncements() -> AsyncStream<PersistentStoreRemoteChange>? { nil }

    /// The state of the store's connection to a server, for stores that keep one; `nil` (the default) for local
    /// stores.
    open var connectionState: StoreConnectionState? { nil }

    /// An error for a request kind the store does not support.
    public func unsupported(_ what: String) -> StoreError {
        StoreError(code: .unsupportedRequest, message: "Stores of type \(type) do not support \(what).",
                   context: ErrorContext(storeURL: url))
    }

    /// Makes an object ID for an object of this store.
    public func objectID(forEntityName entityName: String, referenceKey: Int64) -> ManagedObjectID {
        ManagedObjectID(entityName: entityName, storeIdentifier: identifier, referenceKey: referenceKey)
    }
}

/// The family of stores that execute requests themselves, such as the SQLite store (Core Data's
/// `NSIncrementalStore`).
///
/// Subclasses override ``PersistentStore/loadMetadata()``, ``PersistentStore/load()``,
/// ``PersistentStore/fetch(_:)``, ``PersistentStore/count(_:)``, ``PersistentStore/record(for:)`` (and, to
/// read batches of faults with one query, ``PersistentStore/records(for:)``),
/// ``PersistentStore/newReferenceKeys(forEntityName:count:)``, ``PersistentStore/prepareSave(_:)`` and
/// ``PersistentStore/allRecords()``.
open class IncrementalStore: PersistentStore, @unchecked Sendable {}  // its coordinator keeps writes apart from reads

/// The source of ``PersistentStore/instanceNumber``.
enum StoreInstanceNumbers {
    private static let counter = Atomic<UInt64>(0)

    /// A new number.
    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
