import AlmanacWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The settings of ``WireServer``, with documented defaults.
public struct ServerConfiguration: Sendable {
    /// Where the server listens.
    public enum Listener: Sendable, Hashable {
        /// Bind a Unix-domain socket at this path. A stale socket file is removed; a live one makes the server refuse
        /// to start (`already running`). The file is removed again when the server stops.
        case path(String)
        /// Adopt an inherited listening socket (systemd socket activation). The server does not touch any file.
        case descriptor(CInt)
    }

    /// Where to listen.
    public var listener: Listener
    /// The longest request line in bytes; longer lines are answered `too_large` and skipped. Default 1 MiB.
    public var maxLineLength: Int = WireProtocol.defaultMaxLineLength
    /// How many connections are served, in all and per user, and how long a request line and an idle connection
    /// may take. Default ``ConnectionLimits/init()``: 8,192 connections, 1,024 per user, 10 s per request line,
    /// 5 minutes idle.
    public var connectionLimits = ConnectionLimits()
    /// The listen backlog asked for (the kernel caps it at `net.core.somaxconn`). Connections past a limit are
    /// accepted and answered `busy` at once, so the backlog only holds clients for the moment the server takes to
    /// accept them. Default 4,096.
    public var listenBacklog: Int32 = 4096
    /// The longest a request may take; then the handler is cancelled and the client gets `timeout`. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// On graceful shutdown, how long in-flight requests may take to finish before they are cancelled. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// The permission bits of the socket file. Default `0660` (owner and group may connect).
    public var socketMode: mode_t = 0o660
    /// The permission bits of the socket's folder if the server creates it. Default `0750`.
    public var directoryMode: mode_t = 0o750
    /// Who may insert, update and delete. Default: the daemon's user and root.
    public var writeAccess = WriteAccessPolicy()

    /// A configuration listening on `listener` with the default limits.
    public init(listener: Listener) {
        self.listener = listener
    }

    /// A configuration listening at `socketPath` with the default limits.
    public init(socketPath: String) {
        self.init(listener: .path(socketPath))
    }
}

extension ServerConfiguration.Listener {
    /// The first descriptor passed by socket activation (`SD_LISTEN_FDS_START`).
    public static let socketActivationStart: CInt = 3

    /// The listener per the `sd_listen_fds` protocol: `.descriptor(3)` when `LISTEN_PID` names this process and
    /// `LISTEN_FDS` is at least 1, else `.path(socketPath)`.
    ///
    /// - Parameters:
    ///   - environment: The process environment (pass `ProcessInfo.processInfo.environment`).
    ///   - processID: This process's id (default `getpid()`).
    ///   - socketPath: The path to bind when systemd hands no socket over.
    public static func fromSocketActivation(
        environment: [String: String],
        processID: pid_t = getpid(),
        orPath socketPath: String
    ) -> Self {
        guard let pidText = environment["LISTEN_PID"], let pid = pid_t(pidText), pid == processID,
            let countText = environment["LISTEN_FDS"], let count = Int(countText), count >= 1
        else { return .path(socketPath) }
        return .descriptor(socketActivationStart)
    }
}
