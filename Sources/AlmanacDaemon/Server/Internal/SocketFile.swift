#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain POSIX helpers around the socket file: probing for a live instance, removing stale files, permissions.
enum SocketFile {
    /// The longest path a `sockaddr_un` holds (without the terminating NUL).
    static var maxPathLength: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

    enum Probe: Equatable {
        case absent
        case live
        case stale
        case notASocket
    }

    /// What is at `path`: nothing, a socket someone answers on, a socket nobody answers on, or another file.
    static func probe(_ path: String) -> Probe {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .absent }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .stale }
        defer { close(fd) }
        let result = withSocketAddress(path) { address, length in connect(fd, address, length) }
        if result == 0 { return .live }
        // EAGAIN: the listen backlog is full, so someone is listening.
        return errno == EAGAIN ? .live : .stale
    }

    /// Calls `body` with a `sockaddr_un` for `path` (which must fit, see ``maxPathLength``).
    static func withSocketAddress<T>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Makes sure the folder of `path` exists, creating it (one level) with `mode` if needed.
    static func ensureDirectory(of path: String, mode: mode_t) throws(ServerError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ServerError(
                    code: .invalidSocketPath,
                    message: "\(directory) is not a folder; choose another socket path",
                    path: path
                )
            }
            return
        }
        if mkdir(directory, mode) != 0, errno != EEXIST {
            let error = errno
            throw ServerError(
                code: .invalidSocketPath,
                message: "cannot create the socket's folder \(directory): \(String(cString: strerror(error)))",
                path: path
            )
        }
    }

    /// The inode of the socket file at `path`, to remove only our own file on shutdown.
    static func inode(_ path: String) -> ino_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_ino
    }

    /// Removes the socket file at `path` if it is still the one with `inode`.
    static func remove(_ path: String, ifInode expected: ino_t?) {
        guard let expected, inode(path) == expected else { return }
        unlink(path)
    }

    /// Checks that an inherited descriptor is a listening stream socket and marks it close-on-exec.
    static func validateInherited(_ fd: CInt) throws(ServerError) {
        var type: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            throw ServerError(
                code: .socketActivationFailed,
                message: "descriptor \(fd) is not a socket: \(String(cString: strerror(errno)))"
            )
        }
        guard type == CInt(SOCK_STREAM.rawValue) else {
            throw ServerError(code: .socketActivationFailed, message: "descriptor \(fd) is not a stream socket")
        }
        #if os(Linux)
        var listening: CInt = 0
        length = socklen_t(MemoryLayout<CInt>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 0 {
            throw ServerError(
                code: .socketActivationFailed,
                message: "descriptor \(fd) is not listening; use ListenStream= in the .socket unit"
            )
        }
        #endif
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }
}
