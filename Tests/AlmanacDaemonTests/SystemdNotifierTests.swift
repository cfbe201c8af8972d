import AlmanacDaemon
import Foundation
import Glibc
import Testing

@Suite("systemd notifications")
struct SystemdNotifierTests {
    /// A bound datagram socket standing in for systemd's notify socket: its path and descriptor.
    static func notifySocket() throws -> (String, CInt) {
        let path = "/tmp/og-notify-\(UUID().uuidString.prefix(8)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if bound != 0 { close(fd) }
        try #require(bound == 0)
        return (path, fd)
    }

    @Test func readyReachesANotifySocket() throws {
        let (path, fd) = try Self.notifySocket()
        defer {
            close(fd)
            unlink(path)
        }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"])
        #expect(notifier.watchdogInterval == .seconds(2))
        notifier.ready(status: "serving 2 stores, 10 sessions")
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(count > 0)
        let message = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
        #expect(message.contains("READY=1"))
        #expect(message.contains("STATUS=serving 2 stores, 10 sessions"))
    }

    /// A receiver that stopped reading (a full socket buffer) makes `send` report failure at once; it used to block
    /// the sending thread, and with it SIGTERM handling, until the receiver read again.
    @Test func aReceiverThatStoppedReadingDoesNotBlockTheSender() throws {
        let (path, fd) = try Self.notifySocket()
        defer {
            close(fd)
            unlink(path)
        }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        // The receiver never reads: the datagram queue (net.unix.max_dgram_qlen, 512 by default) fills up.
        var delivered = 0
        var refused = 0
        for index in 0..<5_000 where refused == 0 {
            if notifier.send("STATUS=file \(index) attached") { delivered += 1 } else { refused += 1 }
        }
        #expect(delivered > 0)
        #expect(refused == 1, "the sender should be told the queue is full instead of waiting")
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "STATUS=file 0 attached")
    }

    @Test func withoutNotifySocketNothingIsSent() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.send("READY=1"))
        #expect(notifier.watchdogInterval == nil)
    }
}
