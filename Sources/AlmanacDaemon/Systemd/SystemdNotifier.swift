import Foundation

#if canImport(Glibc)
    import Glibc

    /// Sends readiness and status to systemd over `$NOTIFY_SOCKET` (the `sd_notify` protocol), and reads the watchdog
    /// interval from `$WATCHDOG_USEC`.
    ///
    /// Without `NOTIFY_SOCKET` every call does nothing, so the daemon runs the same outside systemd.
    public struct SystemdNotifier: Sendable {
        /// The socket path; an `@` prefix names an abstract socket.
        public let socketPath: String?
        /// How often systemd expects `WATCHDOG=1`, if it asked.
        public let watchdogInterval: Duration?

        /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from an environment.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0,
                environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true
            {
                watchdogInterval = .microseconds(Int64(usec))
            } else {
                watchdogInterval = nil
            }
        }

        /// Sends `READY=1` with a status line.
        public func ready(status: String) { send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())") }
        /// Sends a status line.
        public func status(_ status: String) { send("STATUS=\(status)") }
        /// Sends `RELOADING=1`.
        public func reloading() { send("RELOADING=1") }
        /// Sends `STOPPING=1`.
        public func stopping() { send("STOPPING=1") }
        /// Sends `WATCHDOG=1`.
        public func watchdog() { send("WATCHDOG=1") }

        /// Sends one datagram without waiting (as `sd_notify` does: a receiver that stopped reading must not stall the
        /// daemon, whose status updates come from the watcher and the request path); returns whether it was delivered.
        @discardableResult
        public func send(_ message: String) -> Bool {
            guard let socketPath else { return false }
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var path = Array(socketPath.utf8)
            if path.first == UInt8(ascii: "@") { path[0] = 0 }
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            guard path.count < capacity else { return false }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: path)
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
            let bytes = Array(message.utf8)
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress, length)
                }
            }
            return sent == bytes.count
        }
    }
#endif
