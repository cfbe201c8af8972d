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
        /// The conference's name (acronym, else a slug of its title or file name), for schedule files.
        public var conference: String?
        /// The conference's title, for schedule files.
        public var conferenceTitle: String?
        /// The conference zone and where it came from, for schedule files.
        public var timeZone: String?
        public var timeZoneSource: TimeZoneSource?
        /// How many warnings the reader recorded, and the first ten.
        public var warningCount = 0
        public var warnings: [String] = []
        /// The file holding a newer release of the same conference: this store is loaded but not attached.
        public var shadowedBy: URL?
        /// Why the per-file settings matching the file were not used (it keeps its earlier reading).
        public var settingsError: String?
        /// The per-file settings the attached store was read with.
        var appliedSettings: FileSettings?
        /// The file's version when its store was read.
        var fileVersion: FileVersion?

        /// The schedule document the store was read from, for schedule files.
        var document: ScheduleDocument? { (store as? any ScheduleDocumentProviding)?.document }
        /// Whether the store answers queries (attached, not shadowed).
        public var isServing: Bool { store != nil && shadowedBy == nil }
        /// For a file holding a release of a conference (a schedule file with a store), the conference's name
        /// lower-cased (empty when it has none): releases with the same key shadow one another.
        var releaseKey: String? { document == nil ? nil : conference?.lowercased() ?? "" }
    }

    /// The entries by path, with the paths of each conference's releases (the entries with a ``Entry/releaseKey``)
    /// kept beside them as entries are set: sorting releases out after one file changed looks at that file's
    /// conference alone. Looking at every entry after every file made files dropped one by one into a watched
    /// folder quadratic (about 10 ms a file once 10,000 were known).
    struct EntryTable {
        private(set) var byPath: [String: Entry] = [:]
        private var releases: [String: Set<String>] = [:]

        subscript(path: String) -> Entry? {
            get { byPath[path] }
            set {
                if let key = byPath[path]?.releaseKey {
                    releases[key]?.remove(path)
                    if releases[key]?.isEmpty == true { releases[key] = nil }
                }
                byPath[path] = newValue
                if let key = newValue?.releaseKey { releases[key, default: []].insert(path) }
            }
        }

        var values: Dictionary<String, Entry>.Values { byPath.values }

        /// Removes a file's entry; returns it.
        mutating func removeValue(forKey path: String) -> Entry? {
            let entry = self[path]
            self[path] = nil
            return entry
        }

        /// The entries of the releases of a conference (by ``Entry/releaseKey``).
        func releases(of key: String) -> [Entry] {
            (releases[key] ?? []).compactMap { byPath[$0] }
        }
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
        /// The per-file reader settings at start (``ScheduleLibrary/updateFileSettings(_:)`` changes them).
        public var fileSettings: [FileSettings] = []

        /// Creates settings.
        public init(
            folders: [URL], readOnlyInbox: Bool = false, maximumFileSize: Int = 64 * 1024 * 1024,
            fileSettings: [FileSettings] = []
        ) {
            self.folders = folders
            self.readOnlyInbox = readOnlyInbox
            self.maximumFileSize = maximumFileSize
            self.fileSettings = fileSettings
        }
    }

    public let coordinator: PersistentStoreCoordinator
    public let configuration: Configuration
    private let lock = Lock()
    /// Held while a file is attached, replaced, detached or set aside, so that these happen one at a time (the
    /// watcher, a SIGHUP rescan and a request that sets a store aside may ask at once). Recursive: a rescan attaches.
    private let operations = Lock(recursive: true)
    private var entries = EntryTable()
    /// The latest release's changes by conference name, for conferences an attached file serves.
    private var changes: [String: ReleaseChanges] = [:]
    /// The per-file reader settings, in order (the first matching glob wins).
    private var fileSettings: [FileSettings]
    /// The version of each file whose last attempt failed, by path.
    private var failedVersions: [String: FileVersion] = [:]
    /// The version each attached store was read from, by path.
    private var attachedVersions: [String: FileVersion] = [:]
    /// How many times a file's store was attached, replaced, detached or set aside.
    private var storeChanges = 0
    /// While a rescan (or a settings reload) attaches and detaches many files, releases are sorted out once at its
    /// end rather than after each file (which looked at every entry each time: 10,000 files took minutes).
    /// Guarded by `operations`.
    private var shadowingDeferred = false
    /// The conferences (by ``Entry/releaseKey``) whose releases changed during the rescan under way.
    private var shadowingPending: Set<String> = []
    private let filter = WatchFilter()

    /// Creates a library on a coordinator.
    public init(coordinator: PersistentStoreCoordinator, configuration: Configuration) {
        self.coordinator = coordinator
        self.configuration = configuration
        self.fileSettings = configuration.fileSettings
        ScheduleFileStore.registerTypes()
    }

    /// A number that grows whenever a file's store is attached, replaced, detached or set aside: a request that
    /// failed on a store can tell whether the store it read is still the one the file is served by.
    public var storeChangeCount: Int { lock.withLock { storeChanges } }

    /// Every known file, sorted by path.
    public var entriesByPath: [Entry] {
        // Sorted by the keys, which are the paths: asking each entry's URL for its path in every comparison held
        // the lock long enough to slow a start-up on 10,000 files (a tenth of its time, on another thread).
        lock.withLock { entries.byPath.sorted { $0.key < $1.key }.map(\.value) }
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

    /// What changed in a conference's latest release, by name (case-insensitive); `nil` if no release replaced
    /// another since the daemon started, or no attached file serves the conference any more.
    public func changes(forConference name: String) -> ScheduleChanges? {
        releaseChanges(forConference: name)?.changes
    }

    /// The changes of a conference's latest release with the URIs its removed sessions had.
    func releaseChanges(forConference name: String) -> ReleaseChanges? {
        lock.withLock { changes.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value }
    }

    /// Every warning the reader recorded for the file's attached (or shadowed) store.
    public func warnings(for url: URL) -> [String] {
        entry(for: url)?.document?.warnings ?? []
    }

    /// The acronyms of conferences with a known previous release.
    public var conferencesWithChanges: [String] { lock.withLock { changes.keys.sorted() } }

    // MARK: Attaching

    /// Reads a file and attaches it, or replaces the store of its earlier version.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - isWatcherEvent: `true` when a watcher event asks (the daemon's watcher service passes it). Then
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
        let (previous, failedVersion, attachedVersion, rules) = lock.withLock {
            (entries[url.path], failedVersions[url.path], attachedVersions[url.path], fileSettings)
        }
        if isWatcherEvent {
            if let version, version == failedVersion || version == attachedVersion { return .ignored }
            if version == nil, previous == nil, Self.isMissing(url) { return .ignored }
        }
        // Settings that cannot be used leave the file with the ones it was last read with.
        let matched = rules.first(matching: url)
        let settings = matched?.error == nil ? matched : previous?.appliedSettings
        do {
            let type = try checkFile(url)
            var readOnly = StoreSniffer.isForeignFormat(type) || configuration.readOnlyInbox
            var options: PersistentStoreOptions = [:]
            if StoreSniffer.isForeignFormat(type) {
                var reader = ScheduleFileStore.configuration
                // The daemon's own limit on a file's size (checked above, `maximumFileSize` in almanacd.json) is the
                // one that counts: the reader's default (64 MiB) refused larger files that the setting allowed.
                reader.limits.maxInputBytes = configuration.maximumFileSize
                if let custom = settings?.readerConfiguration {
                    reader.timeZone = custom.timeZone
                    reader.acronym = custom.acronym
                    reader.dayChange = custom.dayChange
                }
                options[.scheduleReaderConfiguration] = reader
            }
            // A SQLite file dropped into the folder keeps a rollback journal: no -wal/-shm files appear beside it.
            if type == .sqlite {
                options[.sqliteUsesRollbackJournal] = true
                // Writes routed to it are acknowledged only once on disk.
                options[.sqliteSynchronousFull] = true
            }
            // A store written by an earlier version of the schedule model is served as it is, read-only (never
            // migrated in place: the file is the user's), with the attributes it lacks read as nil. A SQLite file is
            // asked first (opening it read-write is not done to find out); the other Core Data stores are asked
            // only when loading refused their model, so that each file's metadata is read once (reading it twice
            // was a tenth of the start-up on 10,000 small files).
            func servingEarlierModelAsIs() {
                options[.ignoresModelVersion] = true
                readOnly = true
            }
            if type == .sqlite, isEarlierScheduleModel(type: type, at: url, options: options) {
                servingEarlierModelAsIs()
            }
            options[.readOnly] = readOnly
            let store: PersistentStore
            do {
                store = try coordinator.loadDetachedStore(
                    type: type, configurationName: "Schedule", at: url, options: options)
            } catch let error as StoreError
                where error.code == .incompatibleModel && !options.flag(.ignoresModelVersion)
                && !StoreSniffer.isForeignFormat(type)
                && isEarlierScheduleModel(type: type, at: url, options: options)
            {
                servingEarlierModelAsIs()
                options[.readOnly] = readOnly
                store = try coordinator.loadDetachedStore(
                    type: type, configurationName: "Schedule", at: url, options: options)
            }
            let outcome: Outcome
            if let old = previous?.store {
                if previous?.shadowedBy == nil {
                    try coordinator.replace(old, with: store)
                } else {
                    old.didRemove()
                }
                recordChanges(old: old, new: store)
                outcome = .replaced
            } else {
                outcome = .attached
            }
            let document = (store as? any ScheduleDocumentProviding)?.document
            let objectCount = (store as? any StoreObjectCounting)?.objectCount ?? 0
            var entry = Entry(
                url: url, type: type, store: store, isReadOnly: readOnly,
                objectCount: objectCount, loadedAt: Date(), error: nil,
                conference: document?.conference.name)
            entry.conferenceTitle = document?.conference.title ?? document?.conference.calendarName
            entry.timeZone = document?.conference.timeZone
            entry.timeZoneSource = document?.conference.timeZoneSource
            entry.warningCount = document?.warnings.count ?? 0
            entry.warnings = Array((document?.warnings ?? []).prefix(10))
            entry.settingsError = matched?.error
            entry.appliedSettings = settings
            entry.fileVersion = version
            // Attached only when no newer release of the same conference is served (the shadowing pass decides).
            entry.shadowedBy = previous?.store == nil ? nil : previous?.shadowedBy
            if previous?.store == nil {
                if let newer = newerRelease(than: entry) {
                    entry.shadowedBy = newer
                } else {
                    try coordinator.attach(store)
                }
            }
            lock.withLock {
                entries[url.path] = entry
                failedVersions[url.path] = nil
                attachedVersions[url.path] = version
                storeChanges += 1
            }
            shadowingChanged([entry.releaseKey, previous?.releaseKey])
            if outcome == .replaced { MemoryTrim.request() }
            return outcome
        } catch {
            let message = Self.describe(error)
            lock.withLock {
                var entry = previous ?? Entry(url: url, type: nil, store: nil, isReadOnly: true, objectCount: 0)
                entry.error = message
                entry.settingsError = matched?.error
                entries[url.path] = entry
                failedVersions[url.path] = version
            }
            return .failed(message)
        }
    }

    /// Detaches a file's store; returns `.ignored` for an unknown file. A release of the same conference that the
    /// file shadowed is attached again.
    @discardableResult
    public func detach(_ url: URL) -> Outcome {
        operations.lock()
        defer { operations.unlock() }
        let url = url.standardizedFileURL
        guard
            let entry = lock.withLock({
                failedVersions[url.path] = nil
                attachedVersions[url.path] = nil
                storeChanges += 1
                return entries.removeValue(forKey: url.path)
            })
        else { return .ignored }
        if let store = entry.store {
            if entry.shadowedBy == nil { try? coordinator.remove(store) } else { store.didRemove() }
            MemoryTrim.request()
        }
        shadowingChanged([entry.releaseKey])
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
        let releaseKey = entry.releaseKey
        if entry.shadowedBy == nil { try? coordinator.remove(store) } else { store.didRemove() }
        entry.store = nil
        entry.shadowedBy = nil
        entry.objectCount = 0
        entry.error = "the file changed under its attached store; waiting for its next version"
        lock.withLock {
            entries[url.path] = entry
            attachedVersions[url.path] = nil
            storeChanges += 1
        }
        shadowingChanged([releaseKey])
        MemoryTrim.request()
        return true
    }

    /// Re-reads, with the new settings, every file whose matching per-file settings changed (SIGHUP). Settings that
    /// cannot be used are reported on the files they match, which keep their earlier reading.
    @discardableResult
    public func updateFileSettings(_ settings: [FileSettings]) -> [(URL, Outcome)] {
        operations.lock()
        defer { operations.unlock() }
        let outer = deferShadowing()
        defer { endDeferredShadowing(outer) }
        let known = lock.withLock {
            fileSettings = settings
            return entries.byPath.sorted { $0.key < $1.key }.map(\.value)
        }
        var outcomes: [(URL, Outcome)] = []
        for entry in known {
            guard entry.type.map(StoreSniffer.isForeignFormat) ?? true else { continue }
            let matched = settings.first(matching: entry.url)
            if let error = matched?.error {
                lock.withLock { entries[entry.url.path]?.settingsError = error }
                continue
            }
            let unchanged = matched == entry.appliedSettings && entry.store != nil
            lock.withLock { entries[entry.url.path]?.settingsError = nil }
            if unchanged { continue }
            outcomes.append((entry.url, attach(entry.url)))
        }
        return outcomes
    }

    /// Compares a folder with what is attached: attaches new files, detaches vanished ones. Returns each file's
    /// outcome.
    @discardableResult
    public func rescan(_ folder: URL) -> [(URL, Outcome)] {
        operations.lock()
        defer { operations.unlock() }
        let outer = deferShadowing()
        defer { endDeferredShadowing(outer) }
        let folder = folder.standardizedFileURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let present = Set(
            names.filter(filter.accepts).map { folder.appendingPathComponent($0).standardizedFileURL.path })
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
        // realpath(3), not Foundation's resolvingSymlinksInPath(), which examined each part of the path through
        // URL operations: a twentieth of the start-up on 10,000 small files.
        guard let resolved = Self.resolvedPath(url) else { throw LibraryError("the file cannot be examined") }
        let inside = configuration.folders.contains { folder in
            let root = Self.resolvedPath(folder) ?? folder.standardizedFileURL.path
            return resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
        guard inside else { throw LibraryError("the file resolves to a path outside the watched folders") }
        var info = stat()
        guard stat(resolved, &info) == 0 else { throw LibraryError("the file cannot be examined") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw LibraryError("not a regular file") }
        guard Int(info.st_size) <= configuration.maximumFileSize else {
            throw LibraryError("the file is larger than \(configuration.maximumFileSize) bytes")
        }
        let fd = open(resolved, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError("the file cannot be read (\(String(cString: strerror(errno))))") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        let failure = errno
        close(fd)
        guard count > 0 else {
            throw LibraryError(
                count == 0 ? "the file is empty" : "the file cannot be read (\(String(cString: strerror(failure))))")
        }
        guard let type = StoreSniffer.storeType(forPrefix: Data(buffer.prefix(count))) else {
            throw LibraryError("the file is not a schedule format Almanac reads")
        }
        guard PersistentStoreCoordinator.registeredStoreTypes.contains(type) else {
            throw LibraryError("\(type) stores are not supported by this build")
        }
        return type
    }

    /// A path with every symbolic link, `.` and `..` resolved; `nil` when a part of it does not exist.
    static func resolvedPath(_ url: URL) -> String? {
        guard let resolved = realpath(url.path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether a Core Data store file was written by an earlier version of the served model's `Schedule`
    /// configuration: its entities are all in that configuration but their versions differ. A store of another model
    /// altogether is not, and is refused as before.
    private func isEarlierScheduleModel(type: PersistentStoreType, at url: URL, options: PersistentStoreOptions)
        -> Bool
    {
        let model = coordinator.managedObjectModel
        guard
            let metadata = try? PersistentStoreCoordinator.metadataForPersistentStore(
                type: type, at: url, options: options.merging([.readOnly: true]) { $1 }, model: model),
            !model.isConfiguration(withName: "Schedule", compatibleWithStoreMetadata: metadata),
            let stored = metadata.modelVersionHashes, !stored.isEmpty
        else { return false }
        let schedule = Set((model.entities(forConfigurationName: "Schedule") ?? model.entities).map(\.name))
        return Set(stored.keys).isSubset(of: schedule) && stored.keys.contains("Session")
    }

    private func recordChanges(old: PersistentStore, new: PersistentStore) {
        guard let before = (old as? any ScheduleDocumentProviding)?.document,
            let after = (new as? any ScheduleDocumentProviding)?.document,
            before.conference.name.caseInsensitiveCompare(after.conference.name) == .orderedSame
        else { return }
        let diff = ScheduleChanges.between(old: before, new: after)
        // The URIs the removed sessions had, so that `changes` can name them (their store is gone).
        var uris: [String: String] = [:]
        if !diff.cancelled.isEmpty, let records = try? old.allRecords() {
            let removed = Set(diff.cancelled.filter { $0.reason == .removed }.map { $0.session.storedGUID })
            for record in records where record.objectID.entityName == "Session" {
                if let guid = record["guid"] as? String, removed.contains(guid) {
                    uris[guid] = record.objectID.uriString
                }
            }
        }
        lock.withLock { changes[after.conference.name] = ReleaseChanges(changes: diff, removedURIs: uris) }
    }

    // MARK: Releases of one conference

    /// The file holding a newer release of the entry's conference than the entry, among the files served now.
    private func newerRelease(than entry: Entry) -> URL? {
        guard entry.conference != nil, let key = entry.releaseKey else { return nil }
        return lock.withLock {
            entries.releases(of: key).first { other in
                other.url != entry.url && other.isServing && Self.isNewer(other, than: entry)
            }?.url
        }
    }

    /// Sorts releases out now, or at the end of the rescan under way. Call with `operations` held.
    /// - Parameter keys: the conferences (``Entry/releaseKey``) whose releases may have changed; `nil` keys (files
    ///   that hold no release) are skipped.
    private func shadowingChanged(_ keys: [String?]) {
        let keys = Set(keys.compactMap { $0 })
        guard !keys.isEmpty else { return }
        if shadowingDeferred {
            shadowingPending.formUnion(keys)
        } else {
            resolveShadowing(keys)
        }
    }

    /// Starts deferring ``resolveShadowing(_:)``; returns whether it was deferred already (a rescan inside another
    /// batch). Call with `operations` held.
    private func deferShadowing() -> Bool {
        let outer = shadowingDeferred
        shadowingDeferred = true
        return outer
    }

    /// Ends what ``deferShadowing()`` started, and sorts releases out if a file changed meanwhile.
    private func endDeferredShadowing(_ outer: Bool) {
        guard !outer else { return }
        shadowingDeferred = false
        if !shadowingPending.isEmpty {
            let keys = shadowingPending
            shadowingPending = []
            resolveShadowing(keys)
        }
    }

    /// Attaches the newest release of each of the conferences (by ``Entry/releaseKey``) held by schedule files and
    /// sets the others aside (loaded, not queried, listed as shadowed by the file they yield to); records what
    /// changed when a newer release arrives. Call with `operations` held.
    private func resolveShadowing(_ keys: Set<String>) {
        let groups = lock.withLock { keys.map { entries.releases(of: $0) }.filter { !$0.isEmpty } }
        var changed: [(String, URL?)] = []
        for group in groups {
            let winner = group.max { Self.isNewer($1, than: $0) }!
            let previousWinner = group.first { $0.shadowedBy == nil && $0.url != winner.url }
            for entry in group {
                let wanted: URL? = entry.url == winner.url ? nil : winner.url
                guard wanted != entry.shadowedBy, let store = entry.store else { continue }
                if wanted == nil {
                    if (try? coordinator.attach(store)) != nil { changed.append((entry.url.path, nil)) }
                } else {
                    if entry.shadowedBy == nil { try? coordinator.remove(store) }
                    changed.append((entry.url.path, wanted))
                }
            }
            if let previousWinner, let old = previousWinner.store, let new = winner.store,
                Self.isNewer(winner, than: previousWinner)
            {
                recordChanges(old: old, new: new)
            }
        }
        lock.withLock {
            for (path, shadowedBy) in changed { entries[path]?.shadowedBy = shadowedBy }
            forgetChangesOfConferencesNotServed(keys)
        }
    }

    /// Whether `lhs` is a newer release than `rhs`: by `version` (numbers compared as numbers), else the release
    /// date the file states, else the file's modification time, else the path (so the choice is stable).
    static func isNewer(_ lhs: Entry, than rhs: Entry) -> Bool {
        let left = lhs.document?.conference, right = rhs.document?.conference
        if let a = left?.version, let b = right?.version {
            let order = a.compare(b, options: [.numeric, .caseInsensitive])
            if order != .orderedSame { return order == .orderedDescending }
        }
        if let a = left?.releaseDate, let b = right?.releaseDate, a != b { return a > b }
        if let a = lhs.fileVersion?.modified, let b = rhs.fileVersion?.modified,
            a.tv_sec != b.tv_sec || a.tv_nsec != b.tv_nsec
        {
            return (a.tv_sec, a.tv_nsec) > (b.tv_sec, b.tv_nsec)
        }
        return lhs.url.path < rhs.url.path
    }

    /// Drops the changes of those of the conferences (by ``Entry/releaseKey``) that no served file holds any more
    /// (its file was deleted, or replaced by another conference's schedule). Without this, a conference known by its
    /// file name left an entry, holding both releases' sessions, for every file replaced under churn. A conference
    /// stops being served only when one of its releases changes, so the conferences whose releases changed are the
    /// ones to look at. Call with `lock` held.
    private func forgetChangesOfConferencesNotServed(_ keys: Set<String>) {
        guard !changes.isEmpty else { return }
        for name in changes.keys where keys.contains(name.lowercased()) {
            let served = entries.releases(of: name.lowercased()).contains { entry in
                entry.isServing && entry.document?.conference.name == name
            }
            if !served { changes[name] = nil }
        }
    }

    /// What identifies one version of a file without reading it.
    struct FileVersion: Equatable, Sendable {
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

/// What changed in a conference's latest release, with the URIs the removed sessions had (by stored guid).
struct ReleaseChanges: Sendable {
    var changes: ScheduleChanges
    var removedURIs: [String: String]
}

/// A file the library refuses, with the reason.
struct LibraryError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
