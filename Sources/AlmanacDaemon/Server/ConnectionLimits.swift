#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections ``WireServer`` holds, per user and in all, and how long it waits for a client, with
/// documented defaults.
///
/// Past a connection limit the server still accepts the connection, answers one `busy` error line naming the limit
/// (`{"code":"busy","message":"…","limit":"maxConnectionsPerUser","value":1024}`) and closes it, so no client waits
/// in the listen backlog. A request line that does not arrive in full within ``requestLineTimeout`` once its first
/// byte came is answered `timeout` (`"limit":"requestLineTimeout"`, `"value"` in seconds) and the connection closed.
public struct ConnectionLimits: Sendable, Hashable {
    /// The name of a limit, as the `limit` field of a `busy` or `timeout` error and the key in `almanacd.json`.
    public struct Name: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// ``ConnectionLimits/maxConnections``.
        public static let maxConnections = Name(rawValue: "maxConnections")
        /// ``ConnectionLimits/maxConnectionsPerUser`` (or the user's entry in
        /// ``ConnectionLimits/maxConnectionsByUser``).
        public static let maxConnectionsPerUser = Name(rawValue: "maxConnectionsPerUser")
        /// ``ConnectionLimits/requestLineTimeout``.
        public static let requestLineTimeout = Name(rawValue: "requestLineTimeout")
    }

    /// The default of ``maxConnections``: 8,192 (about 20 KB of the daemon's memory and one descriptor each).
    public static let defaultMaxConnections = 8192
    /// The default of ``maxConnectionsPerUser``: 1,024.
    public static let defaultMaxConnectionsPerUser = 1024
    /// Descriptors kept for everything but connections (stores, schedule files, the watcher, logs) when
    /// ``fitted(toOpenFileLimit:)`` sizes the limits to the process's open-file limit.
    public static let reservedDescriptors = 256

    /// The most connections served at once, of all users together; one more is answered `busy` and closed.
    /// Default ``defaultMaxConnections``; the daemon lowers it to fit its open-file limit.
    public var maxConnections = ConnectionLimits.defaultMaxConnections
    /// The most connections one user (the uid the kernel reports for the peer, `SO_PEERCRED`) may hold at once; one
    /// more is answered `busy` and closed. Root and the daemon's own user are held only to ``maxConnections``.
    /// Default ``defaultMaxConnectionsPerUser``.
    public var maxConnectionsPerUser = ConnectionLimits.defaultMaxConnectionsPerUser
    /// Limits for particular users by uid, instead of ``maxConnectionsPerUser`` (or, for root and the daemon's user,
    /// instead of ``maxConnections``; still never more than ``maxConnections``). Default: none.
    public var maxConnectionsByUser: [uid_t: Int] = [:]
    /// How long a request line may take to arrive once its first byte came; then the client gets `timeout` and the
    /// connection is closed. The clock restarts when an answer of the connection is written, so a pipelining client
    /// is not cut off while its earlier requests run. Nil waits as long as ``idleTimeout``. Default 10 s.
    public var requestLineTimeout: Duration? = .seconds(10)
    /// Connections without traffic for this long, between requests, are closed (not while a request runs or a
    /// subscription is open); nil keeps them forever. Default 5 minutes.
    public var idleTimeout: Duration? = .seconds(300)

    /// The default limits.
    public init() {}

    /// The most connections the user `uid` may hold at once.
    ///
    /// - Parameters:
    ///   - uid: The peer's uid (`PeerCredentials/uid`).
    ///   - owner: The daemon's own user, held only to ``maxConnections`` like root.
    public func maxConnections(forUser uid: uid_t, owner: uid_t) -> Int {
        if let limit = maxConnectionsByUser[uid] { return min(limit, maxConnections) }
        if uid == 0 || uid == owner { return maxConnections }
        return min(maxConnectionsPerUser, maxConnections)
    }

    /// These limits fitted to an open-file limit of `descriptors`: ``maxConnections`` at most `descriptors` minus
    /// ``reservedDescriptors`` (half of `descriptors` when it is small), and ``maxConnectionsPerUser`` then at most a
    /// quarter of it, so one user cannot take every connection.
    public func fitted(toOpenFileLimit descriptors: Int) -> ConnectionLimits {
        let room = descriptors > 2 * Self.reservedDescriptors ? descriptors - Self.reservedDescriptors : descriptors / 2
        var limits = self
        guard maxConnections > room else { return limits }
        limits.maxConnections = max(1, room)
        limits.maxConnectionsPerUser = min(maxConnectionsPerUser, max(1, limits.maxConnections / 4))
        return limits
    }
}
