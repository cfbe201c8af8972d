import AlmanacWire
import ObjectGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counts open connections, in all and per user, against ``ConnectionLimits``: a value type with no I/O,
/// unit-tested without sockets. ``ConnectionAdmission`` shares one between the event loops.
struct ConnectionLedger {
    /// Whether a new connection may be served.
    enum Decision: Equatable {
        /// Served; ``ConnectionLedger/release(uid:)`` must follow when it closes.
        case admit
        /// Answered `busy` with this error and closed. `isFirst` is true for the first refusal after an admission
        /// (the server logs those, not every refusal of a flood).
        case refuse(WireError, isFirst: Bool)
    }

    let limits: ConnectionLimits
    let owner: uid_t
    private(set) var total = 0
    private(set) var byUser: [uid_t: Int] = [:]
    private var isRefusing = false
    /// The most connections open at once since memory was last handed back.
    private var peak = 0
    /// A flood is closing: memory is handed back at every quarter down to none.
    private var isDraining = false

    /// Connections that must have been open at once for their closing to hand memory back.
    static let trimPeak = 512

    init(limits: ConnectionLimits, owner: uid_t) {
        self.limits = limits
        self.owner = owner
    }

    /// Takes a slot for a connection of `uid` if neither limit is reached.
    mutating func admit(uid: uid_t) -> Decision {
        let held = byUser[uid, default: 0]
        let userLimit = limits.maxConnections(forUser: uid, owner: owner)
        let refusal: WireError?
        if total >= limits.maxConnections {
            refusal = .busy(
                limit: ConnectionLimits.Name.maxConnections.rawValue, value: limits.maxConnections,
                message: "the daemon serves \(limits.maxConnections) connections already; try again later")
        } else if held >= userLimit {
            refusal = .busy(
                limit: ConnectionLimits.Name.maxConnectionsPerUser.rawValue, value: userLimit,
                message: "uid \(uid) holds \(userLimit) connections already, its limit; close some and try again")
        } else {
            refusal = nil
        }
        if let refusal {
            defer { isRefusing = true }
            return .refuse(refusal, isFirst: !isRefusing)
        }
        isRefusing = false
        total += 1
        peak = max(peak, total)
        byUser[uid] = held + 1
        return .admit
    }

    /// Frees the slot of a closed connection of `uid`. Returns true when the memory of closed connections should be
    /// handed back (``MemoryTrim``): at least ``trimPeak`` were open at once and three quarters of them closed, then
    /// at every further quarter down to none.
    mutating func release(uid: uid_t) -> Bool {
        guard let held = byUser[uid], held > 0 else {
            preconditionFailure("released a connection of uid \(uid) that was never admitted")
        }
        total -= 1
        byUser[uid] = held == 1 ? nil : held - 1
        guard peak >= Self.trimPeak || isDraining, total <= peak / 4 else { return false }
        peak = total
        isDraining = total > 0
        return true
    }

    /// The connections `uid` holds.
    func connections(ofUser uid: uid_t) -> Int { byUser[uid, default: 0] }
}

/// The server's one ``ConnectionLedger``, shared by its event loops.
final class ConnectionAdmission: Sendable {
    private let ledger: LockedValue<ConnectionLedger>

    init(limits: ConnectionLimits, owner: uid_t) {
        ledger = LockedValue(ConnectionLedger(limits: limits, owner: owner))
    }

    func admit(uid: uid_t) -> ConnectionLedger.Decision { ledger.withLock { $0.admit(uid: uid) } }

    func release(uid: uid_t) {
        if ledger.withLock({ $0.release(uid: uid) }) { MemoryTrim.request() }
    }

    /// Connections admitted and not yet closed.
    var current: Int { ledger.withLock { $0.total } }
}
