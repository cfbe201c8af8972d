import Foundation

/// The conference a schedule describes.
public struct ConferenceInfo: Sendable, Hashable {
    /// The short name, such as `31c3`; absent in legacy FOSDEM files and in iCalendar files.
    public var acronym: String?
    /// The human-readable title (for iCalendar, `X-WR-CALNAME`, else `X-WR-CALDESC`).
    public var title: String?
    /// The IANA name of the conference time zone, such as `Europe/Berlin`, when the file names one.
    public var timeZone: String?
    /// The first instant (or local midnight of the first day) of the conference.
    public var start: Date?
    /// The last instant (or local midnight of the last day) of the conference.
    public var end: Date?
    /// The release label of this schedule version, such as `1.3 To overcome physical burdens`.
    public var version: String?
    /// The file name or URL the schedule was read from, as passed to the reader.
    public var source: String
    /// The calendar name (`X-WR-CALNAME`) of an iCalendar file; used for identity when there is no acronym.
    public var calendarName: String?

    /// Creates a conference description.
    public init(
        acronym: String? = nil,
        title: String? = nil,
        timeZone: String? = nil,
        start: Date? = nil,
        end: Date? = nil,
        version: String? = nil,
        source: String,
        calendarName: String? = nil
    ) {
        self.acronym = acronym
        self.title = title
        self.timeZone = timeZone
        self.start = start
        self.end = end
        self.version = version
        self.source = source
        self.calendarName = calendarName
    }

    /// The stable identity of the conference across releases: its acronym, else the calendar name,
    /// else the source file name without directory and extension.
    public var identity: ConferenceIdentity {
        ConferenceIdentity(acronym: acronym, calendarName: calendarName, source: source)
    }
}
