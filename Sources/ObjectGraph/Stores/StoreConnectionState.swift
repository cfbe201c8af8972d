import Foundation

/// The state of a store's connection to its server (``PersistentStore/connectionState``), as a daemon shows it.
public struct StoreConnectionState: Sendable, Hashable {
    /// Whether the store is connected or trying to be.
    public enum Status: String, Sendable, Hashable {
        /// The connection is open.
        case connected
        /// The connection was lost (or never made) and the store is trying again.
        case reconnecting
        /// The store was removed: it no longer connects.
        case closed
    }

    /// Whether the store is connected.
    public var status: Status
    /// Since when the store has been in ``status``; `nil` when unknown.
    public var since: Date?
    /// The last connection failure, when there was one.
    public var lastError: String?

    /// Creates a state.
    public init(status: Status, since: Date? = nil, lastError: String? = nil) {
        self.status = status
        self.since = since
        self.lastError = lastError
    }
}
