/// A track (or the first iCalendar `CATEGORIES` value).
public struct TrackInfo: Sendable, Hashable {
    /// The track name as written in the file; it is the track's identity.
    public var name: String

    /// Creates a track.
    public init(name: String) {
        self.name = name
    }
}
