import Foundation
import ObjectGraph
import ObjectGraphSQLite
import Schedules

#if canImport(Glibc)
import Glibc
#endif

/// The schedule files the daemon serves: each attached as a store of one coordinator with configuration `Schedule`,
/// replaced atomically when a newer version arrives, and listed with its status.
///
/// A file is read completely into a detached store before it replaces the attached one, so queries see either the
/// old or the new store, and a bad new file leaves the old one serving (its error is listed).
public final class ScheduleLibrary: @unchecked Sendable {  // `entries` and `changes` are guarded by `lock`
    /// The status of one file.
    public struct Entry: Sendable {
        /// The file.
        public var url: URL
        /// The store type chosen for it, if any.
        public var type: PersistentStoreType?
        /// The attached store, if the file (or an earlier version of it) loaded.
        public var store: PersistentStore?
        /// Whether the store is read-only.
        public var isReadOnly: Bool
        /// The number of objects in the attached store.
        public var objectCount: Int
        /// When the attached store was loaded.
        public var loadedAt: Date?
        /// The error of the last attempt, if it failed.
        public var error: String?
        /// The conference acronym, for schedule files that name one.
        public var conference: String?
    }

    /// What happened to a file.
    public enum Outcome: Sendable, Equatable {
        case attached, replaced, detached, failed(String), ignored
    }

    /// Settings of the library.
    public struct Configuration: Sendable {
        /// The folders whose files may be attached (symlinks must resolve inside one of them).
        public var folders: [URL]
        /// Attach Core Data stores (XML, binary, SQLite) read-only too.
        public var readOnlyInbox = false
        /// The largest file attached, in bytes.
        public var maximumFileSize = 64 * 1024 * 1024

        /// Creates settings.
        public init(folders: [URL], readOnlyInbox: Bool = false, maximumFileSize: Int = 64 * 1024 * 1024) {
            self.folders = folders
            self.readOnlyInbox = readOnlyInbox
            self.maximumFileSize = maximumFileSize
        }
    }

    public let coordinator: PersistentStoreCoordinator
    public let configuration: Configuration
    private let lock = NSLock()
    /// Held while a file is attached, replaced, detached or set aside, so that these happen one at a time (the
    /// watcher, a SIGHUP rescan and a request that sets a store aside may ask at once). Recursive: a rescan attaches.
    private let operations = NSRecursiveLock()
    private var entries: [String: Entry] = [:]
    /// The latest release's changes by conference (``changesKey(_:)``), for conferences an attached file serves.
    private var changes: [String: ScheduleChanges] = [:]
    /// The version of each file whose last attempt failed, by path.
    private var failedVersions: [String: FileVersion] = [:]
    /// The version each attached store was read from, by path.
    private var attachedVersions: [String: FileVersion] = [:]
    private let filter = WatchFilter()

    /// Creates a library on a coordinator.
    public init(coordinator: PersistentStoreCoordinator, configuration: Configuration) {
        self.coordinator = coordinator
        self.configuration = configuration
        ScheduleFileStore.registerTypes()
    }

    /// Every known file, sorted by path.
    public var entriesByPath: [Entry] {
        lock.withLock { entries.values.sorted { $0.url.path < $1.url.path } }
    }

    /// The entry of a file, if the library knows it.
    public func entry(for url: URL) -> Entry? {
        let path = url.standardizedFileURL.path
        return lock.withLock { entries[path] }
    }

    /// The entry of an attached store, by store identifier.
    public func entry(forStoreIdentifier identifier: String) -> Entry? {
        lock.withLock { entries.values.first { $0.store?.identifier == identifier } }
    }

    /// What changed in a conference's latest release, by acronym (case-insensitive); `nil` if no release replaced
    /// another since the daemon started, or no attached file serves the conference any more.
    public func changes(forConference acronym: String) -> ScheduleChanges? {
        lock.withLock { changes.first { $0.key.caseInsensitiveCompare(acronym) == .orderedSame }?.value }
    }

    /// The acronyms of conferences with a known previous release.
    public var conferencesWithChanges: [String] { lock.withLock { changes.keys.sorted() } }

    // MARK: Attaching

    /// Reads a file and attaches it, or replaces the store of its earlier version.
    ///
    /// - Parameter isWatcherEvent: `true` when a watcher event asks (the daemon's watcher service passes it). Then
    ///   a file that has not changed (same inode, size and modification time) since its store was attached or its
    ///   last attempt failed is not read again, and a file that no longer exists and is not known is not recorded:
    ///   both `.ignored`. The daemon's own use of a file raises such events: a Core Data store is opened
    ///   read-write, and closing it raises `IN_CLOSE_WRITE`: after a failed attempt (which retried it at once,
    ///   hundreds of times a second), when a replaced store is closed (which replaced the unchanged file again,
    ///   closing the store just attached: hundreds of replacements a second for as long as the file stayed), and
    ///   after a deleted file's store is detached (which left a failed entry for a file that is gone).
    @discardableResult
    public func attach(_ url: URL, isWatcherEvent: Bool = false) -> Outcome {
        operations.lock()
        defer { operations.unlock() }
        let url = url.standardizedFileURL
        guard filter.accepts(url.lastPathComponent) else { return .ignored }
        let version = FileVersion(url)
        let (previous, failedVersion, attachedVersion) = lock.withLock {
            (entries[url.path], failedVersions[url.path], attachedVersions[url.path])
        }
        if isWatcherEvent {
            if let version, version == failedVersion || version == attachedVersion { return .ignored }
            if version == nil, previous == nil, Self.isMissing(url) { return .ignored }
        }
        do {
            let type = try checkFile(url)
            let readOnly = StoreSniffer.isForeignFormat(type) || configuration.readOnlyInbox
            var options: PersistentStoreOptions = [.readOnly: readOnly]
            // A SQLite file dropped into the folder keeps a rollback journal: no -wal/-shm files appear beside it.
            if type == .sqlite { options[.sqliteUsesRollbackJournal] = true }
            let store = try coordinator.loadDetachedStore(type: type, configurationName: "Schedule", at: url,
                                                          options: options)
            let outcome: Outcome
            if let old = previous?.store {
                try coordinator.replace(old, with: store)
                recordChanges(old: old, new: store)
                outcome = .replaced
            } else {
                try coordinator.attach(store)
                outcome = .attached
            }
            let entry = Entry(url: url, type: type, store: store, isReadOnly: readOnly,
                              objectCount: (store as? AtomicStore)?.cacheNodeCount ?? 0, loadedAt: Date(), error: nil,
                              conference: (store as? ScheduleFileStore)?.document?.conference.acronym)
            lock.withLock {
                entries[url.path] = entry
                failedVersions[url.path] = nil
                attachedVersions[url.path] = version
                if previous?.store != nil { forgetChangesOfConferencesNotServed() }
            }
            return outcome
        } catch {
            let message = Self.describe(error)
            lock.withLock {
                var entry = previous ?? Entry(url: url, type: nil, store: nil, isReadOnly: true, objectCount: 0)
                entry.error = message
                entries[url.path] = entry
                failedVersions[url.path] = version
            }
            return .failed(message)
        }
    }

    /// Detaches a file's store; returns `.ignored` for an unknown file.
    @discardableResult
    public func detach(_ url: URL) -> Outcome {
        operations.lock()
        defer { operations.unlock() }
        let url = url.standardizedFileURL
        guard let entry = lock.withLock({
            failedVersions[url.path] = nil
            attachedVersions[url.path] = nil
            defer { forgetChangesOfConferencesNotServed() }
            return entries.removeValue(forKey: url.path)
        }) else { return .ignored }
        if let store = entry.store { try? coordinator.remove(store) }
        return .detached
    }

    /// Detaches the store of a file that changed under it: another process rewrote the attached file in place, so a
    /// store that reads its file as queries need it (SQLite) fails, or reads bytes it did not load. The entry stays,
    /// without a store and with an error, until the watcher reports the file's next version.
    ///
    /// - Returns: Whether the store was set aside; `false` when the file is unknown, has no store, or is still the
    ///   version its store was read from.
    @discardableResult
    public func setAsideIfChangedUnderItsStore(_ url: URL) -> Bool {
        operations.lock()
        defer { operations.unlock() }
        let url = url.standardizedFileURL
        let (known, attachedVersion) = lock.withLock { (entries[url.path], attachedVersions[url.path]) }
        guard var entry = known, let store = entry.store, FileVersion(url) != attachedVersion else { return false }
        try? coordinator.remove(store)
        entry.store = nil
        entry.objectCount = 0
        entry.error = "the file changed under its attached store; waiting for its next version"
        lock.withLock {
            entries[url.path] = entry
            attachedVersions[url.path] = nil
            forgetChangesOfConferencesNotServed()
        }
        return true
    }

    /// Compares a folder with what is attached: attaches new files, detaches vanished ones. Returns each file's
    /// outcome.
    @discardableResult
    public func rescan(_ folder: URL) -> [(URL, Outcome)] {
        operations.lock()
        defer { operations.unlock() }
        let folder = folder.standardizedFileURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let present = Set(names.filter(filter.accepts).map { folder.appendingPathComponent($0).standardizedFileURL.path })
        var outcomes: [(URL, Outcome)] = []
        let known = lock.withLock { entries.values.map(\.url).filter { $0.deletingLastPathComponent() == folder } }
        for url in known where !present.contains(url.path) { outcomes.append((url, detach(url))) }
        for path in present.sorted() {
            let url = URL(fileURLWithPath: path)
            let entry = lock.withLock { entries[path] }
            if let loadedAt = entry?.loadedAt, let modified = Self.modificationDate(url), modified <= loadedAt {
                continue
            }
            outcomes.append((url, attach(url)))
        }
        return outcomes
    }

    // MARK: Checks

    /// Refuses what must never be read: files outside the watched folders (through symlinks), FIFOs and other
    /// non-regular files, unreadable and oversized files, unknown formats. Returns the sniffed store type.
    func checkFile(_ url: URL) throws -> PersistentStoreType {
        let resolved = url.resolvingSymlinksInPath().standardizedFileURL
        let inside = configuration.folders.contains { folder in
            let root = folder.resolvingSymlinksInPath().standardizedFileURL.path
            return resolved.path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
        guard inside else { throw LibraryError("the file resolves to a path outside the watched folders") }
        var info = stat()
        guard stat(resolved.path, &info) == 0 else { throw LibraryError("the file cannot be examined") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw LibraryError("not a regular file") }
        guard Int(info.st_size) <= configuration.maximumFileSize else {
            throw LibraryError("the file is larger than \(configuration.maximumFileSize) bytes")
        }
        let fd = open(resolved.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError("the file cannot be read (\(String(cString: strerror(errno))))") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        close(fd)
        guard count > 0 else { throw LibraryError(count == 0 ? "the file is empty" : "the file cannot be read") }
        guard let type = StoreSniffer.storeType(forPrefix: Data(buffer.prefix(count))) else {
            throw LibraryError("the file is not a schedule format Almanac reads")
        }
        guard PersistentStoreCoordinator.registeredStoreTypes.contains(type) else {
            throw LibraryError("\(type) stores are not supported by this build")
        }
        return type
    }

    private func recordChanges(old: PersistentStore, new: PersistentStore) {
        guard let before = (old as? ScheduleFileStore)?.document, let after = (new as? ScheduleFileStore)?.document
        else { return }
        let diff = ScheduleChanges.between(old: before, new: after)
        lock.withLock { changes[Self.changesKey(after)] = diff }
    }

    /// The key of a document's conference in `changes`: its acronym, else its identity (`calendar:…` or, for a
    /// conference with neither acronym nor calendar name, `file:` and the file's name).
    private static func changesKey(_ document: ScheduleDocument) -> String {
        document.conference.acronym ?? document.conference.identity.description
    }

    /// Drops the changes of conferences that no attached file serves any more (its file was deleted, or replaced by
    /// another conference's schedule). Without this, a conference known by its file name left an entry, holding
    /// both releases' sessions, for every file replaced under churn. Call with `lock` held.
    private func forgetChangesOfConferencesNotServed() {
        guard !changes.isEmpty else { return }
        let served = Set(entries.values.compactMap { entry in
            (entry.store as? ScheduleFileStore)?.document.map(Self.changesKey)
        })
        changes = changes.filter { served.contains($0.key) }
    }

    /// What identifies one version of a file without reading it.
    struct FileVersion: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec

        init?(_ url: URL) {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = info.st_mtimespec
            #else
            modified = info.st_mtim
            #endif
        }

        static func == (lhs: FileVersion, rhs: FileVersion) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }
    }

    /// Whether nothing (not even a dangling symbolic link) is at the path.
    static func isMissing(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) != 0 && errno == ENOENT
    }

    static func modificationDate(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as StoreError: error.message
        case let error as LibraryError: error.message
        default: "\(error)"
        }
    }
}

/// A file the library refuses, with the reason.
struct LibraryError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
