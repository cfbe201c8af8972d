/// A track (or the first iCalendar `CATEGORIES` value).
public struct TrackInfo: Sendable, Hashable {
    /// The track name as written in the file; it is the track's identity.
    public var name: String
    /// The track's colour as the file writes it (`#rrggbb`), when it gives one (JSON `tracks[].color`, iCalendar
    /// `COLOR`).
    public var color: String?

    /// Creates a track.
    public init(name: String, color: String? = nil) {
        self.name = name
        self.color = color
    }
}
