import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The physical limit of a request over the daemon's Unix socket: a minimal blocking server (a thread per
/// connection, `recv` and `send`, nothing else) that answers every request line with the same canned reply, such as
/// one the daemon gave to a limit-50 fetch. What the daemon spends beyond it is parsing, fetching and encoding.
final class EchoServer: @unchecked Sendable {  // the listening descriptor is set once; threads own their connections
    let socketPath: String
    private let listener: Int32
    private let reply: [UInt8]

    /// Listens on `socketPath` and answers each line with `reply` (a newline is appended).
    init(socketPath: String, reply: ArraySlice<UInt8>) throws {
        self.socketPath = socketPath
        self.reply = Array(reply) + [10]
        unlink(socketPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw BenchError("echo server: socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(listener)
            throw BenchError("echo server: socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            let message = String(cString: strerror(errno))
            close(listener)
            throw BenchError("echo server: bind/listen \(socketPath): \(message)")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Stops accepting (connections end when their clients close them) and removes the socket file.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(socketPath)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Answers every complete line received with the canned reply, until the client closes.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            let lines = chunk[0..<count].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
            for _ in 0..<lines {
                var offset = 0
                while offset < reply.count {
                    let written = reply.withUnsafeBytes {
                        send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                    }
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}
