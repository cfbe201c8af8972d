/// A session that no longer takes place.
public struct SessionCancellation: Sendable, Hashable {
    /// Why the session is reported as cancelled.
    public enum Reason: String, Sendable, Hashable {
        /// The session is absent from the new release.
        case removed
        /// The new release marks the session cancelled.
        case statusCancelled
    }

    /// The session: as it was (for ``Reason/removed``) or as it is now (for ``Reason/statusCancelled``).
    public var session: SessionInfo
    /// Why it is reported.
    public var reason: Reason

    /// Creates a cancellation.
    public init(session: SessionInfo, reason: Reason) {
        self.session = session
        self.reason = reason
    }

    /// The session's identity.
    public var identity: SessionIdentity { session.identity }
}
