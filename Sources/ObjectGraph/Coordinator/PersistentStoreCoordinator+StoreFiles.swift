import Foundation

extension PersistentStoreCoordinator {
    /// SQLite's files beside a database file: its write-ahead log, the log's index, its rollback journal.
    static let journalSuffixes = ["-wal", "-shm", "-journal"]
    /// The files beside a store file that belong to it: SQLite's journal companions and a file store's history.
    static let companionSuffixes = journalSuffixes + ["-history"]

    /// The folder Core Data keeps beside an SQLite store file for what does not go in it (external binary data in
    /// `_EXTERNAL_DATA`): `.<file name without extension>_SUPPORT`, as `.Schedule_SUPPORT` for `Schedule.sqlite`;
    /// `nil` for an in-memory database.
    package static func supportFolder(forStoreAt path: String) -> String? {
        guard !path.isEmpty, path != ":memory:" else { return nil }
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT").path
    }

    /// Deletes a store's file and the files that belong to it (Core Data's
    /// `destroyPersistentStore(at:type:options:)`), an SQLite store's support folder of external binary data
    /// included.
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
        // An SQLite store's support folder (its external binary data) goes with it, as with Core Data.
        if type == .sqlite, let support = Self.supportFolder(forStoreAt: url.path),
            FileManager.default.fileExists(atPath: support)
        {
            do {
                try FileManager.default.removeItem(atPath: support)
            } catch {
                throw StoreError(
                    code: .io, message: "Could not delete \(support): \(error)", context: ErrorContext(storeURL: url))
            }
        }
    }

    /// Replaces the store file at `destinationURL` with a copy of the store at `sourceURL`, of the same type (Core
    /// Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`): for
    /// restoring a backup, or putting a seeded store in place.
    ///
    /// The source is read first as a store of `type` with this coordinator's model, so a file that is not one
    /// changes nothing. The source's files (the store file, its write-ahead log and history, an SQLite store's
    /// support folder of external binary data) are copied beside the
    /// destination first; then the destination's own files are renamed aside, the copies renamed into place (the
    /// store file last) and the set-aside files deleted. A failure before the last step puts the destination's
    /// files back as they were, so the destination never holds one store's file with another's log. The copy keeps
    /// the source's store UUID, so object IDs of the source's objects stay valid for it. Replacing a store with
    /// itself does nothing.
    /// - Throws: ``StoreError/Code/unknownStoreType``; ``StoreError/Code/unsupportedRequest`` when either URL is
    ///   not a file's; the errors of reading the source's metadata
    ///   (``StoreError/Code/corruptFile``, ``StoreError/Code/foreignFile``, …); ``StoreError/Code/storeAlreadyAdded``
    ///   when a store of this coordinator is open at `destinationURL` (remove it first); ``StoreError/Code/io`` when
    ///   copying or renaming fails (the destination is then as it was; should moving a file back fail too, the
    ///   error names the file and where it is, and nothing is deleted).
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: PersistentStoreOptions = [:],
        withPersistentStoreFrom sourceURL: URL, sourceOptions: PersistentStoreOptions = [:],
        type: PersistentStoreType
    ) throws {
        try replacePersistentStore(
            at: destinationURL, withPersistentStoreFrom: sourceURL, sourceOptions: sourceOptions, type: type,
            renaming: { rename($0, $1) == 0 ? 0 : errno })
    }

    /// ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`` with the
    /// renaming call given (it returns 0 or an `errno`), so that tests can make a rename fail.
    func replacePersistentStore(
        at destinationURL: URL, withPersistentStoreFrom sourceURL: URL, sourceOptions: PersistentStoreOptions,
        type: PersistentStoreType, renaming: (String, String) -> Int32
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
        func ioError(_ message: String) -> StoreError {
            StoreError(code: .io, message: message, context: ErrorContext(storeURL: destinationURL))
        }
        let folder = destination.deletingLastPathComponent()
        let token = UUID().uuidString
        let staging = folder.appendingPathComponent(".\(destination.lastPathComponent).replacing-\(token)").path
        let aside = folder.appendingPathComponent(".\(destination.lastPathComponent).replaced-\(token)").path
        // The source's files that come along (the store file last), and the destination's that go. An SQLite
        // store's support folder (its external binary data) is one of them, under its own name.
        var sourcePaths = ["-wal", "-history"].map { source.path + $0 }
        var destinationPaths = ["-wal", "-history"].map { destination.path + $0 }
        var outgoingPaths = Self.companionSuffixes.map { destination.path + $0 }
        if type == .sqlite, let from = Self.supportFolder(forStoreAt: source.path),
            let to = Self.supportFolder(forStoreAt: destination.path)
        {
            sourcePaths.append(from)
            destinationPaths.append(to)
            outgoingPaths.append(to)
        }
        sourcePaths.append(source.path)
        destinationPaths.append(destination.path)
        outgoingPaths.append(destination.path)
        // (source, staged copy, destination) of each file that comes along.
        let incoming = zip(sourcePaths, destinationPaths).enumerated().filter {
            FileManager.default.fileExists(atPath: $0.element.0) || $0.element.0 == source.path
        }.map { (from: $0.element.0, staged: staging + "-\($0.offset)", to: $0.element.1) }
        let outgoing = outgoingPaths.enumerated().filter {
            (try? FileManager.default.attributesOfItem(atPath: $0.element)) != nil
        }.map { (path: $0.element, aside: aside + "-\($0.offset)") }
        defer { for file in incoming { try? FileManager.default.removeItem(atPath: file.staged) } }
        for file in incoming {
            do {
                try FileManager.default.copyItem(atPath: file.from, toPath: file.staged)
            } catch {
                throw ioError("Could not copy \(file.from) beside \(destination.path): \(error).")
            }
        }
        // Renames done so far, undone in reverse order when a later one fails.
        var done: [(from: String, to: String)] = []
        func move(_ from: String, _ to: String) throws {
            let code = renaming(from, to)
            guard code == 0 else {
                var stuck: [(from: String, to: String)] = []
                for step in done.reversed() where renaming(step.to, step.from) != 0 { stuck.append(step) }
                guard stuck.isEmpty else {
                    // Nothing is deleted: the old files are still there, under the names they were moved to.
                    let names = stuck.map { "\($0.from) (now \($0.to))" }.joined(separator: ", ")
                    throw ioError(
                        "Could not rename \(from) to \(to) (errno \(code)), nor move back \(names): put them back "
                            + "by hand.")
                }
                throw ioError("Could not rename \(from) to \(to) (errno \(code)); the destination is as it was.")
            }
            done.append((from, to))
        }
        for file in outgoing { try move(file.path, file.aside) }
        for file in incoming { try move(file.staged, file.to) }
        for file in outgoing { try? FileManager.default.removeItem(atPath: file.aside) }
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
