import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that it appears only when complete: a temporary file in the same folder, fsync, then (on
/// commit) a rename over the target and an fsync of the folder. A crash at any moment leaves either the old or the
/// new complete file.
public enum AtomicFileWriter {
    /// Writes `data` to a temporary file beside `url` and returns the pending rename. A failure removes the
    /// temporary file: the file at `url` is never touched before the rename.
    ///
    /// - Throws: ``StoreError/Code/storageFull`` when the file system is full or the disk quota is used up
    ///   (`ENOSPC`, `EDQUOT`), ``StoreError/Code/io`` naming the file for other failures (a folder that is not
    ///   writable, `EIO`).
    public static func prepare(_ data: Data, at url: URL) throws -> any PreparedSave {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError("create a temporary file for", url) }
        // The errno of the call that failed, read before close and unlink can change it.
        var failure: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = errno }
        if let failure {
            unlink(temporary.path)
            throw ioError("write", url, errno: failure)
        }
        return PendingRename(temporary: temporary, target: url)
    }

    /// Removes temporary files that an earlier process left beside `url` when it was killed between writing and
    /// renaming (`.<name>.<UUID>.tmp`). Call it when a store is opened by its only writer.
    ///
    /// - Returns: the number of files removed.
    ///
    /// The folder is listed again only when it changed since the last listing (by its modification time): opening
    /// each of 10,000 stores in one folder listed the folder each time, most of a daemon's start-up.
    @discardableResult
    public static func removeStaleTemporaryFiles(for url: URL) -> Int {
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = temporaryLookingNames(in: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(4)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            if unlink(folder.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
    }

    /// What identifies one state of a folder's entries: any entry made, removed or renamed changes its
    /// modification time.
    private struct FolderVersion: Equatable {
        var device: UInt64
        var inode: UInt64
        var seconds: Int
        var nanoseconds: Int
    }

    /// The names in a folder that look like temporary files (`.` first, `.tmp` last), by folder path, with the
    /// folder's version when they were listed; at most 64 folders.
    private static let listings = LockedValue<[String: (version: FolderVersion, names: [String])]>([:])

    /// The temporary-looking names in `folder`, listed again only when the folder changed; `nil` when it cannot
    /// be listed.
    private static func temporaryLookingNames(in folder: URL) -> [String]? {
        var info = stat()
        guard stat(folder.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        let version = FolderVersion(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), seconds: Int(modified.tv_sec),
            nanoseconds: Int(modified.tv_nsec))
        let path = folder.path
        if let known = listings.withLock({ $0[path] }), known.version == version { return known.names }
        guard let all = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
        let names = all.filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") }
        listings.withLock { listings in
            if listings.count >= 64 { listings.removeAll() }
            listings[path] = (version, names)
        }
        return names
    }

    private struct PendingRename: PreparedSave {
        let temporary: URL
        let target: URL

        func commit() throws {
            guard rename(temporary.path, target.path) == 0 else {
                let error = AtomicFileWriter.ioError("replace", target)
                unlink(temporary.path)
                throw error
            }
            let folder = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }

        func abort() {
            unlink(temporary.path)
        }
    }

    /// The store error for a failed file operation: `.storageFull` for `ENOSPC` and `EDQUOT`, else `.io`.
    static func ioError(_ verb: String, _ url: URL, errno code: Int32 = errno) -> StoreError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return StoreError(
                code: .storageFull,
                message: "Could not \(verb) \(url.path): \(reason). The file is unchanged; free space on its file "
                    + "system and save again.",
                context: ErrorContext(storeURL: url))
        }
        return StoreError(
            code: .io, message: "Could not \(verb) \(url.path): \(reason).", context: ErrorContext(storeURL: url))
    }
}
