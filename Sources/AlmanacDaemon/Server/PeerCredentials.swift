#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who is on the other end of a connection, as the kernel reports it (`SO_PEERCRED` on Linux), read once when the
/// connection is accepted.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The peer's effective user id.
    public var uid: uid_t
    /// The peer's effective group id.
    public var gid: gid_t
    /// The peer's process id (0 when unknown).
    public var pid: pid_t

    public init(uid: uid_t, gid: gid_t, pid: pid_t) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }

    /// Credentials that could not be read; they never match an authorization rule.
    public static let unknown = PeerCredentials(uid: .max, gid: .max, pid: 0)

    /// Whether the credentials are known.
    public var isKnown: Bool { self != .unknown }

    public var description: String { isKnown ? "uid=\(uid) gid=\(gid) pid=\(pid)" : "unknown peer" }
}
