/// A room (or an iCalendar `LOCATION`).
public struct RoomInfo: Sendable, Hashable {
    /// The room name as written in the file; it is the room's identity.
    public var name: String
    /// The room's guid, when the file gives one (frab `<room guid>`, JSON `rooms[].guid`).
    public var guid: String?
    /// The room's place in the file's own order (0-based: frab `<room>` order of the first day, JSON `rooms`,
    /// else first appearance). Apps show rooms in this order, main halls first.
    public var position: Int

    /// Creates a room.
    public init(name: String, guid: String? = nil, position: Int = 0) {
        self.name = name
        self.guid = guid
        self.position = position
    }
}
