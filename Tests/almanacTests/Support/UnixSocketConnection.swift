import Glibc

/// A plain connected Unix stream socket for tests that talk to the daemon directly (no client process).
enum UnixSocketConnection {
    /// A socket connected to `path` whose reads give up after `receiveTimeout` seconds, or nil when it cannot
    /// connect (the caller closes it).
    static func open(_ path: String, receiveTimeout seconds: Int) -> CInt? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Sends one request line on a connection of its own and returns the reply line (without its newline), or nil
    /// when it cannot connect or no whole line arrives within `receiveTimeout` seconds. Replies of many megabytes are
    /// read in linear time (each chunk is searched for the newline once).
    static func exchange(_ line: String, at path: String, receiveTimeout seconds: Int) -> String? {
        guard let fd = open(path, receiveTimeout: seconds) else { return nil }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { return nil }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            if let end = buffer.prefix(count).firstIndex(of: UInt8(ascii: "\n")) {
                reply += buffer.prefix(end)
                return String(decoding: reply, as: UTF8.self)
            }
            reply += buffer.prefix(count)
        }
    }
}
