#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may change data (`insert`, `update`, `delete`): the daemon's own user, root, and optionally the members of
/// one group. Everyone who can connect may read.
public struct WriteAccessPolicy: Sendable, Hashable {
    /// The user that owns the daemon (default: the process's effective uid).
    public var ownerUID: uid_t
    /// A group whose members may write too (primary or supplementary membership), or nil.
    public var writerGroup: gid_t?

    public init(ownerUID: uid_t = geteuid(), writerGroup: gid_t? = nil) {
        self.ownerUID = ownerUID
        self.writerGroup = writerGroup
    }

    /// Whether `peer` may write.
    public func allowsWrites(by peer: PeerCredentials) -> Bool {
        guard peer.isKnown else { return false }
        if peer.uid == 0 || peer.uid == ownerUID { return true }
        guard let writerGroup else { return false }
        if peer.gid == writerGroup { return true }
        return Self.supplementaryGroups(of: peer.uid, primary: peer.gid).contains(writerGroup)
    }

    /// The groups of the user `uid` from the group database (empty when the user is unknown).
    static func supplementaryGroups(of uid: uid_t, primary: gid_t) -> [gid_t] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var scratch = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &scratch, scratch.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return [] }
        var count: Int32 = 64
        while true {
            #if canImport(Darwin)
            var groups = [Int32](repeating: 0, count: Int(count))
            let status = getgrouplist(name, Int32(bitPattern: primary), &groups, &count)
            if status != -1 { return groups.prefix(Int(count)).map { gid_t(bitPattern: $0) } }
            #else
            var groups = [gid_t](repeating: 0, count: Int(count))
            let status = getgrouplist(name, primary, &groups, &count)
            if status != -1 { return Array(groups.prefix(Int(count))) }
            #endif
            guard count < 65_536 else { return [] }
            count *= 2
        }
    }
}
