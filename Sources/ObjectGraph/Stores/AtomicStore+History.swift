import Foundation

extension AtomicStore {
    /// The metadata key of the number of the last history transaction a save wrote with the store's records.
    public static let historyTransactionNumberKey = "ObjectGraphHistoryTransactionNumber"

    /// Where a file store keeps its history: beside the store file, its name followed by `-history` (as SQLite's
    /// `-wal`); `nil` for stores that write no file.
    public var historyFileURL: URL? {
        guard writesFiles, let url else { return nil }
        return url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + "-history")
    }

    /// The pending write of the history side file with `log`, or nil for stores without files.
    func prepareHistoryWrite(_ log: PersistentHistoryLog) throws -> (any PreparedSave)? {
        guard let historyURL = historyFileURL else { return nil }
        return try AtomicFileWriter.prepare(try historyFileContents(log, at: historyURL), at: historyURL)
    }

    private func historyFileContents(_ log: PersistentHistoryLog, at historyURL: URL) throws -> Data {
        do {
            return try log.fileContents()
        } catch {
            throw StoreError(
                code: .io, message: "The persistent history could not be encoded.",
                context: ErrorContext(storeURL: historyURL), cause: error)
        }
    }

    /// Reads the side file, if there is one, and cuts it back to the transaction the store's metadata names (a
    /// crash between renaming the side file and the store file leaves the side file one save ahead).
    func readHistorySideFile() throws {
        guard let historyURL = historyFileURL else { return }
        guard let data = FileManager.default.contents(atPath: historyURL.path) else {
            historyLog = PersistentHistoryLog()
            return
        }
        var log: PersistentHistoryLog
        do {
            log = try PersistentHistoryLog(fileContents: data, storeID: identifier)
        } catch {
            throw StoreError(
                code: .corruptFile,
                message: "The persistent history file beside the store is damaged; move it away to start "
                    + "a new history.", context: ErrorContext(storeURL: historyURL), cause: error)
        }
        let stored = metadata[Self.historyTransactionNumberKey]
        let committed = (stored as? Int).map(Int64.init) ?? (stored as? Int64) ?? (stored as? NSNumber)?.int64Value ?? 0
        log.truncate(after: committed)
        historyLog = log
    }

    /// Deletes transactions from the log and, for file stores, rewrites the side file at once.
    func deleteFromHistoryLog(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        guard !isReadOnly else {
            throw StoreError(
                code: .readOnlyStore,
                message: "The store was opened read-only; its history cannot be "
                    + "deleted.", context: ErrorContext(storeURL: url))
        }
        var log = historyLog
        let removed = log.delete(cutoff)
        guard removed > 0 else { return 0 }
        if let write = try prepareHistoryWrite(log) { try write.commit() }
        historyLog = log
        return removed
    }
}
