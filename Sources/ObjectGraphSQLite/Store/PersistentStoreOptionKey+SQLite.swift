import Foundation
import ObjectGraph

extension PersistentStoreOptionKey {
    /// `Bool`: run SQLite with `PRAGMA synchronous = FULL` (an fsync at every commit) instead of the default
    /// `NORMAL`, which in WAL mode may lose the last commits on power loss but never corrupts the store.
    public static let sqliteSynchronousFull: PersistentStoreOptionKey = "ObjectGraphSQLiteSynchronousFullOption"
    /// `Double` (seconds) or `Int`: how long a statement waits for another connection's lock before failing with
    /// `StoreError/Code/io`. Default 5 seconds.
    public static let sqliteBusyTimeout: PersistentStoreOptionKey = "ObjectGraphSQLiteBusyTimeoutOption"
    /// `Bool`: keep the rollback journal (`journal_mode = DELETE`) instead of write-ahead logging. Default false.
    public static let sqliteUsesRollbackJournal: PersistentStoreOptionKey = "ObjectGraphSQLiteRollbackJournalOption"
}
