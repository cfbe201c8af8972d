import Foundation

/// One scheduled session (talk, workshop, iCalendar event instance…).
public struct SessionInfo: Sendable, Hashable {
    /// The session's guid, as written (UUIDs are lowercased).
    public var guid: String?
    /// The pretalx code, when the file carries an explicit `code`.
    public var code: String?
    /// The numeric frab id, or a non-numeric id as text.
    public var eventID: SessionEventID?
    /// The iCalendar `UID`.
    public var uid: String?
    /// The original start of an expanded iCalendar recurrence instance (its `RECURRENCE-ID`).
    public var recurrenceInstant: Date?
    /// The frab slug; informative only, never used for identity (it embeds title and room).
    public var slug: String?
    /// The title.
    public var title: String
    /// The subtitle.
    public var subtitle: String?
    /// The abstract, as text (HTML stays as literal text).
    public var abstract: String?
    /// The long description, as text.
    public var details: String?
    /// The start instant.
    public var start: Date
    /// The end instant.
    public var end: Date
    /// The length in whole minutes.
    public var duration: Int
    /// Whether this is an all-day iCalendar event (`VALUE=DATE`), which starts at local midnight.
    public var isAllDay: Bool
    /// The language code, such as `en`.
    public var language: String?
    /// The session type, such as `lecture`.
    public var type: String?
    /// The session's web page.
    public var url: String?
    /// Whether the session takes place.
    public var status: SessionStatus
    /// The 1-based index of the programme day the session belongs to.
    public var dayIndex: Int
    /// The room name.
    public var roomName: String?
    /// The track name.
    public var trackName: String?
    /// The persons, in the order the file lists them.
    public var persons: [PersonInfo]
    /// The links (slides, recordings, pages), in file order.
    public var links: [LinkInfo]
    /// Where attendees give feedback (frab `<feedback_url>`).
    public var feedbackURL: String?
    /// Whether the speakers asked not to be recorded (frab `<recording><optout>`, JSON `do_not_record`).
    public var doNotRecord: Bool

    /// Creates a session. Only the title and the times are required.
    public init(
        guid: String? = nil,
        code: String? = nil,
        eventID: SessionEventID? = nil,
        uid: String? = nil,
        recurrenceInstant: Date? = nil,
        slug: String? = nil,
        title: String,
        subtitle: String? = nil,
        abstract: String? = nil,
        details: String? = nil,
        start: Date,
        end: Date,
        duration: Int? = nil,
        isAllDay: Bool = false,
        language: String? = nil,
        type: String? = nil,
        url: String? = nil,
        status: SessionStatus = .confirmed,
        dayIndex: Int = 1,
        roomName: String? = nil,
        trackName: String? = nil,
        persons: [PersonInfo] = [],
        links: [LinkInfo] = [],
        feedbackURL: String? = nil,
        doNotRecord: Bool = false
    ) {
        self.guid = guid
        self.code = code
        self.eventID = eventID
        self.uid = uid
        self.recurrenceInstant = recurrenceInstant
        self.slug = slug
        self.title = title
        self.subtitle = subtitle
        self.abstract = abstract
        self.details = details
        self.start = start
        self.end = end
        self.duration = duration ?? Int((end.timeIntervalSince(start) / 60).rounded())
        self.isAllDay = isAllDay
        self.language = language
        self.type = type
        self.url = url
        self.status = status
        self.dayIndex = dayIndex
        self.roomName = roomName
        self.trackName = trackName
        self.persons = persons
        self.links = links
        self.feedbackURL = feedbackURL
        self.doNotRecord = doNotRecord
    }

    /// The persons' names, in order.
    public var personNames: [String] { persons.map(\.name) }

    /// The stable identity across releases; see ``SessionIdentity`` for the precedence.
    public var identity: SessionIdentity {
        let identity = SessionIdentity(
            guid: guid, code: code, eventID: eventID, uid: uid, recurrenceInstant: recurrenceInstant)
        guard identity.kind == .title else { return identity }
        return SessionIdentity(kind: .title, value: title + "@" + SessionIdentity.utcStamp(start))
    }
}
