import Foundation
import ObjectGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SQLiteStore {
    /// `PRAGMA data_version`, read again only when the file may have changed: see ``FileStamp``.
    ///
    /// The pragma costs a prepared statement, a read transaction and its file locks; the daemon asks for the
    /// content token on every cached request. This store's own commits count in `commitCount`; another
    /// connection's commit (another process, or another store on the same file) writes the database file or its
    /// `-wal` file, which changes their stamp. The cached version is used only while the stamp is unchanged and
    /// settled (see ``FileStamp/isSettled``), so a write within the file system's timestamp granularity of the
    /// last look is never missed.
    func cheapDataVersion() throws -> UInt64 {
        let stamp: FileStamp?
        if let url {
            if stampPaths?.url != url { stampPaths = FileStamp.Paths(url: url) }
            stamp = FileStamp(paths: stampPaths!)
        } else {
            stamp = FileStamp.inMemory
        }
        if let stamp, stamp.isSettled, let cached = cachedDataVersion, cached.stamp == stamp {
            return cached.version
        }
        // The stamp is taken before the pragma: a commit between the two changes the next stamp.
        let version = try readDataVersion()
        dataVersionReads += 1
        cachedDataVersion = stamp.map { (stamp: $0, version: version) }
        return version
    }
}

/// What the file system says about a store's database file and its `-wal` file: device, inode, size, and the
/// modification and status-change times, in nanoseconds. Another connection's commit writes one of them (the
/// `-wal` file in WAL mode, the database file with a rollback journal), so a commit changes the stamp, as does
/// replacing either file.
///
/// A commit that lands in the same clock tick as an earlier write and leaves the sizes alone (a WAL restarted
/// from its start) may keep the times: so a stamp counts only once ``isSettled``, when both files were last
/// modified at least ``settlingNanoseconds`` before it was taken (git's answer to its "racy" index). Time stamps of
/// local Linux file systems move in steps of a scheduler tick at most (1 to 10 ms); network file systems and
/// clocks set backwards are outside what this promises.
struct FileStamp: Equatable {
    /// How long after the last change a stamp is trusted: 1 s, well above any local file system's granularity.
    static let settlingNanoseconds: Int64 = 1_000_000_000

    private var database: Part
    private var wal: Part?
    /// Whether both files were last modified at least ``settlingNanoseconds`` before the stamp was taken: a later
    /// write then leaves a later modification time.
    private(set) var isSettled: Bool

    /// The stamp of an in-memory store (no URL): a constant, since no other connection can write it.
    static let inMemory = FileStamp(
        database: Part(device: 0, inode: 0, size: 0, modified: 0, changed: 0), wal: nil, isSettled: true)

    private init(database: Part, wal: Part?, isSettled: Bool) {
        (self.database, self.wal, self.isSettled) = (database, wal, isSettled)
    }

    /// The stamp of the files at `paths` now; nil when the database file cannot be examined (the pragma is then
    /// read every time).
    init?(paths: Paths) {
        guard let database = Part(path: paths.database) else { return nil }
        self.database = database
        wal = Part(path: paths.wal)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let threshold = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - Self.settlingNanoseconds
        isSettled = max(database.modified, wal?.modified ?? .min) < threshold
    }

    /// A store's database file and its `-wal` file, by path.
    struct Paths {
        let url: URL
        let database: String
        let wal: String

        init(url: URL) {
            self.url = url
            database = url.path
            wal = database + "-wal"
        }
    }

    /// Stamps are the same when the files are; whether each was settled does not matter.
    static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
        lhs.database == rhs.database && lhs.wal == rhs.wal
    }

    /// One file's identity, size and times.
    private struct Part: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64

        init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
            (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
        }

        /// The file's `stat`, or nil when it does not exist (or cannot be examined).
        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            #if canImport(Darwin)
                let (modified, changed) = (status.st_mtimespec, status.st_ctimespec)
            #else
                let (modified, changed) = (status.st_mtim, status.st_ctim)
            #endif
            self.modified = Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec)
            self.changed = Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec)
        }
    }
}
