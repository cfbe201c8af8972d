import Foundation

extension PersistentStoreCoordinator {
    /// SQLite's files beside a database file: its write-ahead log, the log's index, its rollback journal.
    static let journalSuffixes = ["-wal", "-shm", "-journal"]
    /// The files beside a store file that belong to it: SQLite's journal companions and a file store's history.
    static let companionSuffixes = journalSuffixes + ["-history"]

    /// Deletes a store's file and the files that belong to it (Core Data's
    /// `destroyPersistentStore(at:type:options:)`).
    ///
    /// A store of this coordinator at `url` is removed from it first; its objects become invalid in every context.
    /// Destroying a store that has no file (none was ever written, or an in-memory store) does nothing. Other
    /// coordinators that have the file open keep what they read; do not destroy a store another program uses.
    /// - Throws: ``StoreError/Code/unknownStoreType`` for a type no store class is registered for, and
    ///   ``StoreError/Code/unsupportedRequest`` for a URL that is not a file's, without touching anything;
    ///   ``StoreError/Code/io`` when a file exists and cannot be deleted (the files not yet
    ///   deleted stay).
    public func destroyPersistentStore(at url: URL, type: PersistentStoreType, options: PersistentStoreOptions = [:])
        throws
    {
        guard StoreTypeRegistry.shared.storeClass(for: type) != nil else {
            throw StoreError(
                code: .unknownStoreType, message: "No store class is registered for type '\(type)'.",
                context: ErrorContext(storeURL: url))
        }
        guard type == .inMemory || url.isFileURL else { throw Self.notAFile(url) }
        if let attached = persistentStore(for: url) { try remove(attached) }
        guard type != .inMemory else { return }
        // The store file last: a reader that finds it finds no stale journal beside it.
        for suffix in Self.companionSuffixes + [""] {
            try Self.deleteIfPresent(url.path + suffix, storeURL: url)
        }
    }

    /// Replaces the store file at `destinationURL` with a copy of the store at `sourceURL`, of the same type (Core
    /// Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`): for
    /// restoring a backup, or putting a seeded store in place.
    ///
    /// The source is read first as a store of `type` with this coordinator's model, so a file that is not one
    /// changes nothing. The destination then gets the source's files, its own companions removed; the store file
    /// is renamed into place last, so a reader sees the old store or the new one. The copy keeps the source's
    /// store UUID, so object IDs of the source's objects stay valid for it. Replacing a store with itself does
    /// nothing.
    /// - Throws: ``StoreError/Code/unknownStoreType``; ``StoreError/Code/unsupportedRequest`` when either URL is
    ///   not a file's; the errors of reading the source's metadata
    ///   (``StoreError/Code/corruptFile``, ``StoreError/Code/foreignFile``, …); ``StoreError/Code/storeAlreadyAdded``
    ///   when a store of this coordinator is open at `destinationURL` (remove it first); ``StoreError/Code/io`` when
    ///   copying fails (the destination is then as it was, unless the failure came while putting the files in
    ///   place).
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: PersistentStoreOptions = [:],
        withPersistentStoreFrom sourceURL: URL, sourceOptions: PersistentStoreOptions = [:],
        type: PersistentStoreType
    ) throws {
        for url in [sourceURL, destinationURL] where !url.isFileURL { throw Self.notAFile(url) }
        let source = sourceURL.standardizedFileURL
        let destination = destinationURL.standardizedFileURL
        guard source.path != destination.path else { return }
        if persistentStore(for: destinationURL) != nil {
            throw StoreError(
                code: .storeAlreadyAdded,
                message:
                    "A store of this coordinator is open at \(destinationURL.path); remove it before replacing it.",
                context: ErrorContext(storeURL: destinationURL))
        }
        var readOptions = sourceOptions
        readOptions[.readOnly] = true
        _ = try Self.metadataForPersistentStore(
            type: type, at: sourceURL, options: readOptions, model: managedObjectModel)
        let folder = destination.deletingLastPathComponent()
        let staging = folder.appendingPathComponent(".\(destination.lastPathComponent).replacing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        do {
            try FileManager.default.copyItem(at: source, to: staging)
        } catch {
            throw StoreError(
                code: .io, message: "Could not copy \(source.path) beside \(destination.path): \(error).",
                context: ErrorContext(storeURL: destinationURL))
        }
        // The old companions go; the source's (its write-ahead log, its history) come; the store file last.
        for suffix in Self.companionSuffixes {
            try Self.deleteIfPresent(destination.path + suffix, storeURL: destinationURL)
        }
        for suffix in ["-wal", "-history"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            do {
                try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
            } catch {
                throw StoreError(
                    code: .io, message: "Could not copy \(source.path + suffix): \(error).",
                    context: ErrorContext(storeURL: destinationURL))
            }
        }
        guard rename(staging.path, destination.path) == 0 else {
            let code = errno
            throw StoreError(
                code: .io, message: "Could not put the copy in place of \(destination.path) (errno \(code)).",
                context: ErrorContext(storeURL: destinationURL))
        }
    }

    /// The error for a store URL that names no file (a PostgreSQL server's, say): there are no files to delete or
    /// copy, and nothing is touched.
    private static func notAFile(_ url: URL) -> StoreError {
        StoreError(
            code: .unsupportedRequest,
            message: "\(url.absoluteString) is not a file URL: only stores kept in files can be destroyed or replaced.",
            context: ErrorContext(storeURL: url))
    }

    /// Deletes a file unless there is none.
    private static func deleteIfPresent(_ path: String, storeURL: URL) throws {
        guard unlink(path) != 0 else { return }
        let code = errno
        guard code != ENOENT else { return }
        throw StoreError(
            code: .io, message: "Could not delete \(path) (errno \(code)).", context: ErrorContext(storeURL: storeURL))
    }
}
