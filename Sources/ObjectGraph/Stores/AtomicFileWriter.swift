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
    /// Writes `data` to a temporary file beside `url` and returns the pending rename.
    ///
    /// - Throws: ``StoreError/Code/io`` naming the file when the folder is not writable or the disk is full.
    public static func prepare(_ data: Data, at url: URL) throws -> any PreparedSave {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ioError("create a temporary file for", url) }
        var ok = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok else {
            unlink(temporary.path)
            throw ioError("write", url)
        }
        return PendingRename(temporary: temporary, target: url)
    }

    /// Removes temporary files that an earlier process left beside `url` when it was killed between writing and
    /// renaming (`.<name>.<UUID>.tmp`). Call it when a store is opened by its only writer.
    ///
    /// - Returns: the number of files removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(for url: URL) -> Int {
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(4)
            guard UUID(uuidString: String(middle)) != nil else { continue }
            if unlink(folder.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
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

    static func ioError(_ verb: String, _ url: URL) -> StoreError {
        let reason = String(cString: strerror(errno))
        return StoreError(code: .io, message: "Could not \(verb) \(url.path): \(reason).",
                          context: ErrorContext(storeURL: url))
    }
}
