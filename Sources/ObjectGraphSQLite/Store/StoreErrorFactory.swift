import CSQLite
import Foundation
import ObjectGraph

/// Converts the module's internal errors to the framework's ``StoreError`` at the store's edge.
enum StoreErrorFactory {
    /// The store error for an SQLite error: damaged files are `.corruptFile`, a full file system or used-up quota
    /// `.storageFull`, a busy or locked database and I/O failures are `.io`, everything else `.io` as well with the
    /// SQLite error as its cause.
    static func storeError(_ error: SQLiteError, url: URL?, doing what: String) -> StoreError {
        let context = ErrorContext(storeURL: url)
        if error.isNotADatabaseOrCorrupt {
            return StoreError(code: .corruptFile,
                              message: "The SQLite store is damaged (\(error.message)) while \(what); restore it "
                                + "from a backup.", context: context, cause: error)
        }
        if error.resultCode == SQLITE_READONLY {
            return StoreError(code: .readOnlyStore, message: "The SQLite store file is read-only while \(what).",
                              context: context, cause: error)
        }
        if error.isStorageFull {
            return StoreError(
                code: .storageFull,
                message: "The file system of the SQLite store is full while \(what) (\(error.message)); nothing of "
                    + "this save was written. Free space and save again.",
                context: context, cause: error)
        }
        return StoreError(code: .io, message: "SQLite failed while \(what): \(error.message)", context: context,
                          cause: error)
    }

    /// Runs `body`, converting SQLite errors to store errors; a statement interrupted because its work was
    /// cancelled (see `StoreCancellation`) throws `CancellationError`.
    static func converting<T>(url: URL?, doing what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            if error.resultCode == SQLITE_INTERRUPT { throw CancellationError() }
            throw storeError(error, url: url, doing: what)
        }
    }

    static func foreignFile(_ url: URL?, _ reason: String) -> StoreError {
        StoreError(code: .foreignFile, message: "\(url?.path ?? "The file") is not an ObjectGraph or Core Data SQLite "
                    + "store: \(reason).", context: ErrorContext(storeURL: url))
    }

    static func corruptFile(_ url: URL?, _ reason: String) -> StoreError {
        StoreError(code: .corruptFile, message: "\(url?.path ?? "The file") is a damaged SQLite store: \(reason).",
                   context: ErrorContext(storeURL: url))
    }
}
