import CSQLite
import Glibc
import ObjectGraph

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One connection to an SQLite database file: a thin, module-internal wrapper over the sqlite3 C API.
///
/// Threading: the connection is opened with `SQLITE_OPEN_NOMUTEX` (SQLite's "multi-thread" mode): SQLite does not
/// lock the connection itself, so every call must come from one thread or task at a time. The store that owns
/// the connection already serializes access (one isolation domain per connection), so SQLite's per-call mutex
/// (`FULLMUTEX`) would only add cost; the type is deliberately not `Sendable` so the compiler keeps it inside that
/// domain.
///
/// Statements prepared with ``prepare(_:)`` are cached by SQL text and reused; they are finalized when the
/// connection closes.
final class SQLiteConnection {
    /// How the file is opened.
    enum OpenMode: Sendable {
        /// Reads only; writes fail with `SQLITE_READONLY`.
        case readOnly
        /// Reads and writes an existing file.
        case readWrite
        /// Reads and writes, creating the file if needed.
        case create
    }

    /// `PRAGMA journal_mode`.
    enum JournalMode: String, Sendable {
        /// Keep whatever the file uses (rollback journal `delete` for a new file).
        case `default`
        case delete
        case wal
    }

    /// `PRAGMA synchronous`.
    enum Synchronous: String, Sendable {
        /// In WAL mode, durable except for the last transactions before a power loss; never corrupts.
        case normal
        /// Fsyncs at every commit.
        case full
    }

    /// Connection settings, with defaults suited to a store file.
    struct Configuration: Sendable {
        /// How to open the file. Default ``OpenMode/create``.
        var mode: OpenMode = .create
        /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
        /// Default 5 seconds.
        var busyTimeout: Duration = .seconds(5)
        /// Journal mode, set at open (not for read-only connections). Default ``JournalMode/wal``.
        var journalMode: JournalMode = .wal
        /// Synchronous level, set at open. Default ``Synchronous/normal`` (safe with WAL).
        var synchronous: Synchronous = .normal
        /// How many prepared statements ``SQLiteConnection/prepare(_:)`` keeps. Default 64.
        var statementCacheCapacity = 64
    }

    /// The raw `sqlite3 *`, for the rare call this wrapper does not cover.
    private(set) var handle: OpaquePointer?
    let path: String
    let configuration: Configuration
    /// How the file keeps binary data that may be stored outside it (shared with the connection's statements).
    let externalData: ExternalBinaryData
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The nesting depth of ``inTransaction(_:)``.
    var transactionDepth = 0

    /// Opens (or creates) the database at `path` and checks that it is an SQLite database.
    ///
    /// URI file names are off: a path starting with `file:` is opened as a relative path. A read-only connection
    /// to a WAL-mode file in a folder it may not write (so that SQLite cannot create the file's -shm) reads the file
    /// as immutable when its -wal is missing or empty, and fails with a message saying so when the -wal holds
    /// changes.
    /// - Throws: ``SQLiteError``: `SQLITE_CANTOPEN` if the file cannot be opened, `SQLITE_NOTADB` if it is not an
    ///   SQLite database (or its header is damaged), `SQLITE_CORRUPT` if its schema cannot be read.
    init(path: String, configuration: Configuration = Configuration()) throws(SQLiteError) {
        self.path = path
        self.configuration = configuration
        externalData = ExternalBinaryData(databasePath: path)
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        switch configuration.mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        // Without SQLITE_OPEN_URI, "file:" names are only URIs if SQLite was built with SQLITE_USE_URI;
        // a "./" prefix rules that out.
        let fileName = path.hasPrefix("file:") ? "./" + path : path
        handle = try Self.open(fileName, flags: flags, path: path)
        do {
            try configure()
        } catch  where configuration.mode == .readOnly && Self.cannotMakeSharedMemory(error, path: path) {
            // A WAL-mode file in a folder this process cannot write (a backup, another user's files) cannot get
            // the -shm file a reader needs. With no write-ahead log to read, the file alone holds every committed
            // change: read it as immutable, which needs no -shm. A log with content needs the -shm.
            close()
            guard Self.writeAheadLogIsEmpty(path) else {
                throw SQLiteError(
                    resultCode: error.resultCode, extendedResultCode: error.extendedResultCode,
                    message: "Cannot read \(path): its write-ahead log (-wal) holds changes, which SQLite reads "
                        + "only with a -shm file beside it, and its folder does not let this process create one "
                        + "(copy the file with its -wal to a folder you can write)")
            }
            let uri =
                "file:"
                + (Self.absolute(path).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                    ?? path) + "?immutable=1"
            handle = try Self.open(uri, flags: flags | SQLITE_OPEN_URI, path: path)
            do {
                try configure()
            } catch {
                close()
                throw error
            }
        } catch {
            close()
            throw error
        }
    }

    /// Opens a handle with extended result codes on.
    private static func open(_ fileName: String, flags: Int32, path: String) throws(SQLiteError) -> OpaquePointer {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(fileName, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error = db.map { SQLiteError(connection: $0) } ?? SQLiteError(resultCode: code)
            sqlite3_close_v2(db)
            throw SQLiteError(
                resultCode: error.resultCode,
                extendedResultCode: error.extendedResultCode,
                message: "Cannot open \(path): \(error.message)"
            )
        }
        sqlite3_extended_result_codes(db, 1)
        return db
    }

    /// Whether a read-only connection's first read failed for want of a -shm file it may not create: a WAL-mode
    /// file (header bytes 18 and 19 are 2) and `SQLITE_READONLY_CANTINIT`, `SQLITE_READONLY_DIRECTORY` or
    /// `SQLITE_CANTOPEN`. Other failures (a hot rollback journal it may not roll back among them) stay errors.
    private static func cannotMakeSharedMemory(_ error: SQLiteError, path: String) -> Bool {
        let code = error.extendedResultCode
        let cantInit = SQLITE_READONLY | (5 << 8)
        let readOnlyDirectory = SQLITE_READONLY | (6 << 8)
        guard code == cantInit || code == readOnlyDirectory || code & 0xFF == SQLITE_CANTOPEN else { return false }
        let descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var header = [UInt8](repeating: 0, count: 20)
        guard pread(descriptor, &header, 20, 0) == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    /// Whether the file's write-ahead log is missing or empty (a checkpointed or never-written log).
    private static func writeAheadLogIsEmpty(_ path: String) -> Bool {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return true }
        return info.st_size == 0
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    deinit {
        close()
    }

    private func configure() throws(SQLiteError) {
        let milliseconds =
            configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        // Reading the schema forces SQLite to read and check the file header: a text file or a damaged header
        // fails here (SQLITE_NOTADB) instead of at the first query.
        try execute("SELECT count(*) FROM sqlite_master")
        if configuration.mode != .readOnly {
            if configuration.journalMode != .default {
                let mode = try prepare("PRAGMA journal_mode = \(configuration.journalMode.rawValue)")
                defer { mode.reset() }
                _ = try mode.step()
            }
            try execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        }
        try registerFunctions()
        // A statement outside a transaction (a read) stops with SQLITE_INTERRUPT once its work is cancelled; one
        // inside a save's transaction runs on, so a save is never cut in half.
        let interruptsCancelledWork: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { db in
            StoreCancellation.isCurrentWorkCancelled && sqlite3_get_autocommit(OpaquePointer(db)) != 0 ? 1 : 0
        }
        let db = UnsafeMutableRawPointer(handle)
        sqlite3_progress_handler(handle, Self.progressInterval, interruptsCancelledWork, db)
    }

    /// How many virtual-machine instructions SQLite runs between checks for cancellation (a few microseconds).
    static let progressInterval: Int32 = 4096

    /// Finalizes cached statements and closes the connection. Later calls fail with `SQLITE_MISUSE`.
    /// Statements still held elsewhere keep the connection alive until they are released (`sqlite3_close_v2`).
    func close() {
        statementCache.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
        }
        handle = nil
    }

    func openHandle() throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(resultCode: SQLITE_MISUSE, message: "The connection is closed.")
        }
        return handle
    }

    // MARK: - Running SQL

    /// Runs a script of one or more statements without parameters (schema creation, pragmas).
    func execute(_ sql: String) throws(SQLiteError) {
        let db = try openHandle()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            var error = SQLiteError(
                resultCode: code, extendedResultCode: sqlite3_extended_errcode(db), message: text, sql: sql)
            error.recordSystemError(of: db)
            throw error
        }
    }

    /// How many parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`: 32766 by default since SQLite
    /// 3.32, 999 before).
    var parameterLimit: Int {
        Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }

    /// Returns the cached prepared statement for `sql` (one statement, `?` placeholders), reset and with its
    /// bindings cleared; prepares and caches it on first use.
    ///
    /// The same object comes back for the same SQL, so finish with one use before preparing the same SQL
    /// again (use ``makeStatement(_:)`` for a statement of your own, e.g. nested iteration).
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try makeStatement(sql)
        if statementCache.count >= configuration.statementCacheCapacity {
            statementCache.removeAll(keepingCapacity: true)
        }
        statementCache[sql] = statement
        return statement
    }

    /// Prepares a new statement that is not cached.
    func makeStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(db: openHandle(), sql: sql, externalData: externalData)
    }

    /// The number of statements in the cache.
    var cachedStatementCount: Int {
        statementCache.count
    }

    /// The rowid of the last successful INSERT on this connection.
    var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int {
        handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }

    /// Whether the connection is inside a transaction (SQLite's view, not only ``inTransaction(_:)``).
    var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }
}
