import Foundation
import ObjectGraph

/// The SQLite store: an incremental store in Core Data's SQLite layout.
///
/// Register it once with ``register()`` and add it to a coordinator as `.sqlite`:
///
/// ```swift
/// SQLiteStore.register()
/// try coordinator.addPersistentStore(type: .sqlite, at: url)
/// ```
///
/// The file has Core Data's tables: `Z_PRIMARYKEY` (entity numbers and key counters), `Z_METADATA` (the store's
/// UUID and a binary property list with its metadata and the model's version hashes), one table per inheritance
/// root (`Z` + the upper-cased name) with `Z_PK`, `Z_ENT`, `Z_OPT` and a `Z`-prefixed column per attribute and
/// to-one relationship, join tables for many-to-many relationships and `Z_FOK_` order columns for ordered ones.
/// Apple's stores open read-only with `.readOnly` and `.ignoresModelVersion`.
///
/// Fetches and counts run as SQL: predicates compile to `WHERE` clauses with bound values where the
/// translation is exact, and are evaluated in memory otherwise. Saves run in one transaction that
/// `PersistentStore/prepareSave(_:)` opens and the coordinator's commit closes; `Z_OPT` is the optimistic-locking
/// version. Options: `PersistentStoreOptionKey/sqliteSynchronousFull`,
/// `PersistentStoreOptionKey/sqliteBusyTimeout`, `PersistentStoreOptionKey/sqliteUsesRollbackJournal`, and
/// lightweight migration with `.migratePersistentStoresAutomatically` and `.inferMappingModelAutomatically`.
///
/// The coordinator serializes every call, so the store needs no locking of its own.
public final class SQLiteStore: IncrementalStore, @unchecked Sendable {  // see PersistentStore
    /// `.sqlite`.
    public override class var storeType: PersistentStoreType { .sqlite }

    /// Whether data starts with the 16 bytes of every SQLite 3 database file ("SQLite format 3" and a NUL).
    public override class func canOpen(prefix: Data) -> Bool {
        SQLiteConnection.isSQLiteFile(header: prefix)
    }

    /// Registers the class as the `.sqlite` store type; calling it again does nothing more.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(SQLiteStore.self, forStoreType: .sqlite)
    }

    /// Whether a file starts like an SQLite database (a cheap test before adding a store).
    public static func isSQLiteFile(at url: URL) -> Bool {
        SQLiteConnection.isSQLiteFile(atPath: url.path)
    }

    /// The open connection; `nil` before ``loadMetadata()`` and after ``didRemove()``.
    var connection: SQLiteConnection?
    /// The model's mapping onto the file's tables.
    var schema: SQLSchema! { didSet { madeIDs = nil } }
    /// Whether a prepared save's transaction is open.
    var hasOpenSave = false
    /// Saves committed through this store, for ``contentToken()``.
    var commitCount: UInt64 = 0
    /// The last `PRAGMA data_version` read for ``contentToken()`` and the files' stamp taken before it.
    var cachedDataVersion: (stamp: FileStamp, version: UInt64)?
    /// How many times ``contentToken()`` read `PRAGMA data_version` (for tests).
    var dataVersionReads = 0
    /// The paths ``FileStamp`` examines, made once per URL: `URL.path` decodes the URL's percent escapes each time it
    /// is asked, and the daemon asks for the content token on every request.
    var stampPaths: FileStamp.Paths?
    /// The `SELECT` of one object's row and its reader, by entity number.
    var recordQueries: [Int64: (String, RecordReader)] = [:]
    /// The `SELECT … WHERE Z_PK IN (` of batches of faults and its reader, by table name and how lists are read.
    var batchQueries: [BatchQueryKey: (String, RecordReader)] = [:]
    /// Compiled fetches, by request.
    var fetchQueries: [FetchQueryKey: FetchQuery] = [:]
    /// The tables that held no rows when last seen (see `holdsNoRows(of:connection:)`), by name.
    var tablesKnownEmpty: Set<String> = []
    /// The readers of fetched rows, by entities and properties (shared by fetches whose predicates differ).
    var recordReaders = RecordReaderCache()
    /// Prototype IDs per entity (see ``storeIDs()``).
    var madeIDs: StoreIDs?
    /// The `INSERT`/`UPDATE` writers, by entity number.
    var rowWriters: [Int64: RowWriter] = [:]
    /// Whether the open save updated or deleted objects whose external binary data files may now be unnamed, so
    /// that its commit sweeps them (`sweepExternalData()`).
    var sweepsExternalDataAfterCommit = false

    /// Opens (or creates) the file and reads its metadata; migrates it first when the model changed and
    /// lightweight migration was requested.
    ///
    /// - Throws: `StoreError` with `.foreignFile` (not SQLite, or not a Core Data store), `.corruptFile` (a
    ///   damaged database), `.io`, or migration errors. A refused file is never modified.
    public override func loadMetadata() throws {
        try openStore()
    }

    /// Nothing to do: an incremental store reads rows when asked.
    public override func load() throws {}

    /// Rolls back an unfinished save and closes the connection.
    public override func didRemove() {
        if hasOpenSave, let connection { try? connection.execute("ROLLBACK") }
        hasOpenSave = false
        cachedDataVersion = nil
        connection?.close()
        connection = nil
    }

    // MARK: Requests (implemented in the extensions)

    /// Runs a fetch as SQL, evaluating in memory only what does not translate exactly; see `performFetch`.
    ///
    /// - Throws: the predicate's evaluation errors, as the in-memory stores throw them; `StoreError` with
    ///   `.io` or `.corruptFile`.
    public override func fetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        try performFetch(request)
    }

    /// Counts with `COUNT(*)` when the predicate translates to SQL, else by fetching keys.
    public override func count(_ request: StoreFetchRequest) throws -> Int {
        try performCount(request)
    }

    /// This store's commits and SQLite's `data_version` (which another connection's commit changes), together.
    ///
    /// The pragma is read again only when the database file or its `-wal` file changed since the last read, or
    /// changed less than a second before it (their `stat`: see `FileStamp`); otherwise the token costs two `stat`
    /// calls.
    public override func contentToken() throws -> UInt64? {
        let external = try StoreErrorFactory.converting(url: url, doing: "reading the data version") {
            try cheapDataVersion()
        }
        return commitCount << 32 | (external & 0xFFFF_FFFF)
    }

    /// One object's row and its to-many relationships, in one query; `nil` when the store does not hold it.
    public override func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try readRecord(objectID)
    }

    /// The rows of several objects, with their to-many relationships, in one query per table.
    public override func records(for objectIDs: [ManagedObjectID]) throws -> [StoreRecord] {
        try readRecords(objectIDs)
    }

    /// The rows of several objects alone, in one query per table: their to-many lists are left to queries of
    /// their own when an object's list is first used.
    public override func recordsWithoutToManyLists(for objectIDs: [ManagedObjectID]) throws -> [StoreRecord]? {
        try readRecords(objectIDs, withLists: false)
    }

    /// Groups and partial aggregates computed with `GROUP BY`; `nil` when the request does not translate to SQL
    /// exactly (the coordinator then evaluates it in memory).
    public override func aggregate(_ request: StoreAggregateRequest) throws -> [StoreAggregateRow]? {
        try performAggregate(request)
    }

    /// Allocates keys from `Z_PRIMARYKEY.Z_MAX` durably (keys of failed saves leave gaps).
    public override func newReferenceKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        try allocateKeys(forEntityName: entityName, count: count)
    }

    /// Writes the whole save in one open transaction after checking every `Z_OPT`.
    ///
    /// - Throws: `StoreError/Code/mergeConflict` listing every conflicting object (nothing is written then),
    ///   `.readOnlyStore`, `.io`, `.corruptFile`.
    public override func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        try writeSave(changes)
    }

    // MARK: Persistent history (see `SQLiteStore+History.swift`)

    /// The SQLite store keeps history in tables of its file.
    public override class var supportsPersistentHistory: Bool { true }

    /// Creates the history tables when missing.
    public override func loadHistory() throws { try createHistoryTables() }

    /// Reads transactions and their changes with one query.
    public override func fetchHistory(_ query: PersistentHistoryQuery) throws -> [PersistentHistoryTransaction] {
        try StoreErrorFactory.converting(url: url, doing: "reading the history") { try readHistory(query) }
    }

    /// Deletes transactions in a transaction of its own.
    public override func deleteHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        try StoreErrorFactory.converting(url: url, doing: "deleting history") { try removeHistory(cutoff) }
    }

    /// The last transaction number SQLite handed out (kept or deleted).
    public override func lastHistoryTransactionNumber() throws -> Int64 {
        try StoreErrorFactory.converting(url: url, doing: "reading the history") {
            try readLastHistoryTransactionNumber()
        }
    }

    /// SQLite's `data_version`, which only other connections' commits change.
    public override func externalChangeCount() throws -> UInt64? {
        try StoreErrorFactory.converting(url: url, doing: "reading the data version") { try readDataVersion() }
    }

    /// Every record of the store's entities (for migration to another store).
    public override func allRecords() throws -> [StoreRecord] {
        try readAllRecords()
    }

    /// Writes the metadata to `Z_METADATA` in a transaction of its own.
    ///
    /// - Throws: `StoreError/Code/readOnlyStore` for a read-only store; `.io`.
    public override func saveMetadata() throws {
        guard !isReadOnly else {
            throw StoreError(code: .readOnlyStore, message: "The SQLite store was opened read-only; its metadata "
                                + "cannot change.", context: ErrorContext(storeURL: url))
        }
        try StoreErrorFactory.converting(url: url, doing: "writing the metadata") {
            try openConnection().inTransaction { try writeMetadata() }
        }
    }

    /// The open connection, or `.io` when the store was removed.
    func openConnection() throws -> SQLiteConnection {
        guard let connection else {
            throw StoreError(code: .io, message: "The SQLite store is closed (it was removed from its coordinator).",
                             context: ErrorContext(storeURL: url))
        }
        return connection
    }
}
