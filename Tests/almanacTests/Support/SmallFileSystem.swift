import Foundation
import Glibc

/// A `tmpfs` of a few hundred KB mounted for one test, so that a test can fill it: mounting needs root (CI runs as
/// root); ``isAvailable`` says whether it works here. Always ``unmount()`` it.
final class SmallFileSystem {
    /// The mount point.
    let url: URL

    /// Whether this process may mount a `tmpfs` (tried once, on a scratch folder).
    static let isAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        guard let probe = try? SmallFileSystem(kilobytes: 64) else { return false }
        probe.unmount()
        return true
    }()

    struct MountFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Mounts a `tmpfs` of `kilobytes` on a new folder under the temporary folder.
    init(kilobytes: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard mount("tmpfs", url.path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: url)
            throw MountFailed(description: "mount -t tmpfs -o size=\(kilobytes)k: \(reason)")
        }
    }

    /// Unmounts (lazily, should a process still hold a file there) and removes the mount point.
    func unmount() {
        umount2(url.path, Int32(MNT_DETACH))
        rmdir(url.path)
    }

    /// The bytes still free.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Fills the file system with one file until at most `bytes` remain free (writing stops at `ENOSPC`).
    @discardableResult
    func fill(leaving bytes: Int, name: String = "filler") -> URL {
        let file = url.appendingPathComponent(name)
        let fd = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x2A, count: 4096)
        while freeBytes > bytes {
            let count = min(chunk.count, freeBytes - bytes)
            if write(fd, chunk, count) <= 0 { break }
        }
        return file
    }
}
