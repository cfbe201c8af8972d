/// A room (or an iCalendar `LOCATION`).
public struct RoomInfo: Sendable, Hashable {
    /// The room name as written in the file; it is the room's identity.
    public var name: String

    /// Creates a room.
    public init(name: String) {
        self.name = name
    }
}
