import Foundation

/// A session whose start time or room changed.
public struct SessionMove: Sendable, Hashable {
    /// The session in the old release.
    public var old: SessionInfo
    /// The session in the new release.
    public var new: SessionInfo

    /// Creates a move.
    public init(old: SessionInfo, new: SessionInfo) {
        self.old = old
        self.new = new
    }

    /// The session's identity.
    public var identity: SessionIdentity { new.identity }
    /// Whether the start instant changed.
    public var isRescheduled: Bool { old.start != new.start }
    /// Whether the room changed.
    public var isRelocated: Bool { old.roomName != new.roomName }
    /// The old start.
    public var oldStart: Date { old.start }
    /// The new start.
    public var newStart: Date { new.start }
    /// The old room.
    public var oldRoom: String? { old.roomName }
    /// The new room.
    public var newRoom: String? { new.roomName }
}
