import Foundation
import NIOPosix
import ObjectGraph
import PostgresNIO

extension PersistentStoreType {
    /// The PostgreSQL store (`ObjectGraphPostgres`): one schema of a PostgreSQL database.
    public static let postgres = PersistentStoreType(rawValue: "PostgreSQL")
}

/// An incremental store in a schema of a PostgreSQL database, shared live by every process that opens it.
///
/// Register it once with ``register()`` and add it with a PostgreSQL URL (see ``PostgresStoreLocation``):
///
/// ```swift
/// PostgresStore.register()
/// try coordinator.addPersistentStore(
///     type: .postgres, at: URL(string: "postgres:///almanac?host=/run/postgresql&schema=personal")!)
/// ```
///
/// The schema holds Core Data's layout with PostgreSQL types (`PostgresSchema`): `Z_PRIMARYKEY` (entity numbers
/// and key counters), `Z_METADATA` (the store's UUID, its metadata as a property list with the model's version
/// hashes, and a change token), one table per inheritance root with `Z_PK`, `Z_ENT` and the row version `Z_OPT`,
/// join tables for many-to-many relationships, and the model's indexes. The first coordinator to open an empty
/// schema creates it (under an advisory lock, so that concurrent first openings create it once).
///
/// Fetches and counts run as SQL compiled by the predicate compiler the SQLite store uses, in PostgreSQL's
/// dialect (`PostgresDialect`); what does not translate exactly is evaluated in memory. Sort keys put nil first,
/// as Core Data does (`NULLS FIRST` ascending). A save is one transaction: it locks and checks the `Z_OPT` of every
/// changed object (a merge conflict otherwise), writes the rows, bumps the change token and announces it with
/// `NOTIFY`; the coordinator's commit commits it, so a save is acknowledged only once PostgreSQL committed it.
///
/// Lightweight migration (`.migratePersistentStoresAutomatically` and `.inferMappingModelAutomatically`) adds the
/// tables and columns of new entities and properties.
///
/// The store protocol is synchronous: the store waits on PostgresNIO's futures from the calling thread, never from
/// an event-loop thread (see `PostgresEventLoop`). A lost connection is re-opened by the next call.
public final class PostgresStore: IncrementalStore, @unchecked Sendable {  // see PersistentStore
    /// `.postgres`.
    public override class var storeType: PersistentStoreType { .postgres }

    /// Registers the class as the `.postgres` store type; calling it again does nothing more.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(PostgresStore.self, forStoreType: .postgres)
    }

    /// Where the store lives.
    public let location: PostgresStoreLocation
    /// The connection.
    let session: PostgresSession
    /// The model's mapping onto the schema's tables.
    var schema: SQLSchema! { didSet { madeIDs = nil } }
    /// Prototype IDs per entity.
    var madeIDs: StoreIDs?
    /// The dialect of the compiled SQL.
    let dialect = PostgresDialect()
    /// The listening connection, once loaded.
    let listener = LockedValue<PostgresListener?>(nil)
    /// This store instance's name in its `NOTIFY` payloads (see ``notification(token:)``).
    let origin = UUID().uuidString.lowercased()
    /// The change token of the save whose transaction is open (set by `writeSave`, handed to the listener as the
    /// instance's own just before `COMMIT`).
    let openSaveToken = LockedValue<Int64?>(nil)

    /// Creates the store for a PostgreSQL URL; no connection is made before ``loadMetadata()``.
    ///
    /// - Throws: `StoreError` with `.invalidURI` when the URL is not a PostgreSQL URL with a database.
    public required init(
        model: ManagedObjectModel, configurationName: String?, url: URL?,
        options: PersistentStoreOptions
    ) throws {
        guard let url, let location = PostgresStoreLocation(url: url) else {
            throw StoreError(
                code: .invalidURI,
                message: "A PostgreSQL store needs a URL such as postgres://user@host:5432/database?"
                    + "schema=name or postgres:///database?host=/run/postgresql&schema=name.",
                context: ErrorContext(storeURL: url))
        }
        self.location = location
        session = PostgresSession(location: location)
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    /// Whether the store's connection to the server is open.
    public var isConnected: Bool { session.isConnected }

    /// Connects, creates the schema when it is new, and reads the metadata; migrates first when the model changed
    /// and lightweight migration was requested.
    ///
    /// - Throws: `StoreError` with `.io` when the server cannot be reached or refuses the request.
    public override func loadMetadata() throws {
        try openStore()
        try startListening()
    }

    /// Nothing to do: an incremental store reads rows when asked.
    public override func load() throws {}

    /// Rolls back an unfinished save and closes the connection.
    public override func didRemove() {
        listener.withLock { listener in
            listener?.stop()
            listener = nil
        }
        session.close()
    }

    /// The other coordinators' commits, as the store's listening connection hears of them (see
    /// `PersistentStore.remoteChangeAnnouncements()`); `nil` before the store is loaded and after it is removed.
    public override func remoteChangeAnnouncements() -> AsyncStream<PersistentStoreRemoteChange>? {
        listener.withLock { $0 }?.subscribe()
    }

    /// The state of the listening connection, which stays open as long as the store is attached: `connected`,
    /// or `reconnecting` since the connection was lost, with the last error.
    public override var connectionState: StoreConnectionState? {
        guard let state = listener.withLock({ $0 })?.currentState else {
            return StoreConnectionState(status: .closed)
        }
        if let since = state.connectedSince {
            return StoreConnectionState(status: .connected, since: since, lastError: state.lastError)
        }
        return StoreConnectionState(
            status: .reconnecting, since: state.reconnectingSince, lastError: state.lastError)
    }

    /// Opens the listening connection (in the background), from the change token read now.
    private func startListening() throws {
        let token = try converting("reading the change token") {
            try session.query("SELECT Z_TOKEN FROM Z_METADATA WHERE Z_VERSION = 1").first.map {
                try $0[column: 0].decode(Int64.self)
            } ?? 0
        }
        let made = PostgresListener(
            target: PostgresListener.Target(
                location: location, channel: notificationChannel, origin: origin, storeIdentifier: identifier,
                storeURL: url, tracksHistory: isTrackingPersistentHistory),
            lastToken: token)
        listener.withLock { listener in
            listener?.stop()
            listener = made
        }
        made.start()
    }

    /// Runs a fetch as SQL, evaluating in memory only what does not translate exactly.
    public override func fetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        try converting("fetching \(request.entity.name) objects") { try performFetch(request) }
    }

    /// Counts with `COUNT(*)` when the predicate translates to SQL, else by fetching keys.
    public override func count(_ request: StoreFetchRequest) throws -> Int {
        try converting("counting \(request.entity.name) objects") { try performCount(request) }
    }

    /// The change token of `Z_METADATA`, which every save to the schema (by any process) increments; `nil` when
    /// asked on an event-loop thread (a server answering from its cache of replies), where the store must not wait
    /// for the network: nothing is then kept or answered from a cache.
    public override func contentToken() throws -> UInt64? {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { return nil }
        return try converting("reading the change token") {
            let rows = try session.query("SELECT Z_TOKEN FROM Z_METADATA WHERE Z_VERSION = 1")
            return try rows.first.map { UInt64(bitPattern: try $0[column: 0].decode(Int64.self)) }
        }
    }

    /// One object's row and its to-many relationships; `nil` when the store does not hold it.
    public override func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try converting("reading an object") { try readRecords([objectID]).first }
    }

    /// The rows of several objects, with their to-many relationships, in one query per entity.
    public override func records(for objectIDs: [ManagedObjectID]) throws -> [StoreRecord] {
        try converting("reading objects") { try readRecords(objectIDs) }
    }

    /// Allocates keys from `Z_PRIMARYKEY.Z_MAX` in a transaction of its own, safe against other processes.
    public override func newReferenceKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        try converting("allocating object IDs") { try allocateKeys(forEntityName: entityName, count: count) }
    }

    /// Writes the whole save in one open transaction after locking and checking every `Z_OPT`.
    ///
    /// - Throws: `StoreError/Code/mergeConflict` listing every conflicting object (nothing is written then),
    ///   `.readOnlyStore`, `.io`.
    public override func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        try writeSave(changes)
    }

    /// Every record of the store's entities (for migration to another store).
    public override func allRecords() throws -> [StoreRecord] {
        try converting("reading all objects") {
            var records: [StoreRecord] = []
            for table in schema.heldTables where schema.hasTable(table.name) {
                let request = StoreFetchRequest(
                    entity: table.root,
                    entityNames: Set(table.root.selfAndDescendants.map(\.name)),
                    predicate: nil, sortKeys: [], limit: 0)
                records += try performFetch(request).compactMap(\.record)
            }
            return records
        }
    }

    // MARK: Persistent history (see `PostgresStore+History.swift`)

    /// The PostgreSQL store keeps history in tables of its schema.
    public override class var supportsPersistentHistory: Bool { true }

    /// Creates the history tables when missing.
    public override func loadHistory() throws { try createHistoryTables() }

    /// The transactions a query selects, oldest first.
    ///
    /// - Throws: `StoreError/Code/persistentHistoryTokenExpired`; `.io`.
    public override func fetchHistory(_ query: PersistentHistoryQuery) throws -> [PersistentHistoryTransaction] {
        try converting("reading the history") { try readHistory(query) }
    }

    /// Deletes transactions and their changes in a transaction of its own; returns how many.
    ///
    /// - Throws: `StoreError/Code/readOnlyStore` for a read-only store; `.io`.
    public override func deleteHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        try converting("deleting history") { try removeHistory(cutoff) }
    }

    /// The number of the last transaction recorded: the change token.
    public override func lastHistoryTransactionNumber() throws -> Int64 {
        try converting("reading the history") { try readLastHistoryTransactionNumber() }
    }

    /// Writes the metadata to `Z_METADATA`.
    ///
    /// - Throws: `StoreError/Code/readOnlyStore` for a read-only store; `.io`.
    public override func saveMetadata() throws {
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore,
                message: "The PostgreSQL store was opened read-only; its metadata "
                    + "cannot change.", context: ErrorContext(storeURL: url))
        }
        try converting("writing the metadata") { try session.inTransaction { try writeMetadata() } }
    }

    /// The maker of this store's IDs (kept until the store's identifier changes).
    func storeIDs() -> StoreIDs {
        if let made = madeIDs, made.storeIdentifier == identifier { return made }
        let made = StoreIDs(schema: schema, storeIdentifier: identifier)
        madeIDs = made
        return made
    }

    /// Runs `body`, converting PostgresNIO's and the network's errors to `StoreError` (`.io`); the store's own
    /// errors and cancellation pass through.
    func converting<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw storeError(error, doing: doing)
        }
    }

    /// A `StoreError` for a failure of the server or the connection, with the server's message when it sent one.
    func storeError(_ error: any Error, doing: String) -> StoreError {
        var reason = "the connection failed"
        // Whether the server cannot be reached (rather than refusing the request): no connection, a lost one, or
        // the server shutting down (SQLSTATE classes 08, connection exception, and 57, operator intervention).
        var unreachable = true
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                reason = "the server said: \(message)"
                let state = error.serverInfo?[.sqlState]
                if let state { reason += " (SQLSTATE \(state))" }
                unreachable = state.map { $0.hasPrefix("08") || $0.hasPrefix("57") } ?? false
            } else {
                reason = "\(error.code)"
            }
        } else if let error = error as? PostgresSessionError {
            switch error {
            case .connectionLost: reason = "the connection closed in the middle of a transaction"
            case .onEventLoop:
                reason = "the store was called on an event-loop thread, where it cannot wait"
                unreachable = false
            }
        } else {
            reason = "\(error)"
        }
        if unreachable {
            return StoreError(
                code: .unavailable,
                message: "PostgreSQL store \(location.displayString) is unavailable while \(doing): \(reason). "
                    + "Nothing was written; the store reconnects by itself, try again once the server is back.",
                context: ErrorContext(storeURL: url), cause: error)
        }
        return StoreError(
            code: .io,
            message: "PostgreSQL store \(location.displayString) failed while \(doing): "
                + "\(reason).", context: ErrorContext(storeURL: url), cause: error)
    }
}
