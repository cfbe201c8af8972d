import Foundation

/// The conference a schedule describes.
public struct ConferenceInfo: Sendable, Hashable {
    /// The short name, such as `31c3`; absent in legacy FOSDEM files and in iCalendar files.
    public var acronym: String?
    /// The human-readable title (for iCalendar, `X-WR-CALNAME`, else `X-WR-CALDESC`).
    public var title: String?
    /// The conference time zone: an IANA name such as `Europe/Berlin`, or a fixed offset written `+01:00`
    /// when the file's offsets match no known zone. Readers always set it; ``timeZoneSource`` says where it came from.
    public var timeZone: String?
    /// Where ``timeZone`` came from: the file's own zone name, the UTC offsets of its times, the per-file setting,
    /// or an assumption (UTC, with a warning).
    public var timeZoneSource: TimeZoneSource
    /// The subtitle (frab `<subtitle>`, JSON `subtitle`).
    public var subtitle: String?
    /// The conference's web site (frab `<base_url>`/`<url>`, JSON `url`/`base_url`, iCalendar `URL`).
    public var url: String?
    /// When this release was made, where the file says so (the newest iCalendar `LAST-MODIFIED`/`DTSTAMP`); used
    /// to tell which of two files of one conference is newer when neither has a version.
    public var releaseDate: Date?
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
        timeZoneSource: TimeZoneSource = .assumed,
        subtitle: String? = nil,
        url: String? = nil,
        releaseDate: Date? = nil,
        start: Date? = nil,
        end: Date? = nil,
        version: String? = nil,
        source: String,
        calendarName: String? = nil
    ) {
        self.acronym = acronym
        self.title = title
        self.timeZone = timeZone
        self.timeZoneSource = timeZoneSource
        self.subtitle = subtitle
        self.url = url
        self.releaseDate = releaseDate
        self.start = start
        self.end = end
        self.version = version
        self.source = source
        self.calendarName = calendarName
    }

    /// The conference's short name, as clients name it: its acronym (kept as written), else a lower-case slug of its
    /// title (or calendar name), else a slug of the source file's name (`jres-2021-22`, `fosdem-2021`).
    /// Stable across releases as long as the acronym or title is.
    public var name: String {
        if let acronym = acronym?.trimmedNonEmpty { return acronym }
        for text in [title, calendarName] {
            if let text, let slug = ConferenceIdentity.slug(text) { return slug }
        }
        return ConferenceIdentity.slug(ConferenceIdentity.fileStem(of: source)) ?? "conference"
    }

    /// The identity of the conference as earlier versions named it: its acronym, else the calendar name,
    /// else the source file name without directory and extension (`calendar:…`, `file:…`). Kept to recognise
    /// favourites made under those names; ``name`` is what clients see.
    public var identity: ConferenceIdentity {
        ConferenceIdentity(acronym: acronym, calendarName: calendarName, source: source)
    }
}
