import Foundation

/// One release of a conference schedule, read from a frab XML, frab JSON or iCalendar file.
///
/// A document is a plain value: it has no tie to any store, so it can cross isolation domains freely.
/// Readers fill `rooms` and `tracks` in the file's order (declared, else first use; only those sessions use),
/// `persons` in order of first appearance, and `sessions` in file order (expanded recurrences follow their master
/// event in time order).
public struct ScheduleDocument: Sendable, Hashable {
    /// The conference the schedule belongs to.
    public var conference: ConferenceInfo
    /// The conference days, ordered by index.
    public var days: [DayInfo]
    /// The rooms sessions use, in the file's order (``RoomInfo/position``).
    public var rooms: [RoomInfo]
    /// The tracks sessions use, in the file's order (declared, else first use).
    public var tracks: [TrackInfo]
    /// The speakers and other persons attached to sessions, deduplicated by guid, else id, else name.
    public var persons: [PersonInfo]
    /// The sessions, unique by ``SessionInfo/identity`` (a repeat run has a suffixed identity of its own).
    public var sessions: [SessionInfo]
    /// The format the document was read from.
    public var format: ScheduleFormat
    /// Things the reader tolerated, assumed or repaired (repeat runs, merged duplicates, an assumed time zone,
    /// truncated recurrences…), each starting `line N:` when it is about one record.
    public var warnings: [String]

    /// Creates a document from its parts.
    public init(
        conference: ConferenceInfo,
        days: [DayInfo] = [],
        rooms: [RoomInfo] = [],
        tracks: [TrackInfo] = [],
        persons: [PersonInfo] = [],
        sessions: [SessionInfo] = [],
        format: ScheduleFormat,
        warnings: [String] = []
    ) {
        self.conference = conference
        self.days = days
        self.rooms = rooms
        self.tracks = tracks
        self.persons = persons
        self.sessions = sessions
        self.format = format
        self.warnings = warnings
    }

    /// The session with the given identity, if any.
    ///
    /// Complexity: O(n) in the number of sessions.
    public func session(withIdentity identity: SessionIdentity) -> SessionInfo? {
        sessions.first { $0.identity == identity }
    }
}
