import Foundation

/// The fields of one frab event as written, before times are resolved (shared by the XML and JSON readers).
struct FrabRawEvent {
    var line: Int?
    var dayPosition: Int
    var guid: String?
    var id: String?
    var code: String?
    var slug: String?
    var title: String?
    var subtitle: String?
    var abstract: String?
    var details: String?
    /// `<date>`: a full timestamp, usually with a UTC offset.
    var date: String?
    /// `<start>`: local `HH:MM` on the day's date (or the next, past the day change).
    var start: String?
    var duration: String?
    var room: String?
    var track: String?
    var type: String?
    var language: String?
    var url: String?
    var status: String?
    var persons: [PersonInfo] = []

    init(line: Int?, dayPosition: Int) {
        self.line = line
        self.dayPosition = dayPosition
    }
}

/// One `<day>` as written.
struct FrabRawDay {
    var line: Int?
    var index: Int?
    var date: String?
    var start: String?
    var end: String?
}

/// Resolves frab days and events into a document.
///
/// Time rules, in order of preference for each event:
/// 1. `date` with a UTC offset is the instant (floating `date` values are read in the conference zone);
/// 2. else `start` (`HH:MM`) on the day's date in the conference zone; a start earlier than the day's cut-off
///    belongs to the next calendar date. The cut-off is the time of day of the day's `start` attribute, else
///    the conference `day_change`, else midnight (no shift).
///
/// The conference zone is `time_zone_name` (must be an IANA name, else `invalidTimeZone`), else the fixed
/// UTC offset of the first day `start` or event `date` that carries one, else the configuration's fallback
/// zone (with a warning).
struct FrabScheduleBuilder {
    var source: String
    var configuration: ScheduleReaderConfiguration
    var format: ScheduleFormat
    var version: String?
    var acronym: String?
    var title: String?
    var conferenceStart: String?
    var conferenceEnd: String?
    var timeZoneName: String?
    var timeZoneLine: Int?
    var dayChange: String?
    var days: [FrabRawDay] = []
    /// Rooms named by the file in order (frab `<room name>`, JSON room keys), even when empty.
    var declaredRooms: [String] = []
    var events: [FrabRawEvent] = []
    var warnings: [String] = []

    init(source: String, configuration: ScheduleReaderConfiguration, format: ScheduleFormat) {
        self.source = source
        self.configuration = configuration
        self.format = format
    }

    private func error(_ code: ScheduleError.Code, _ message: String, line: Int?) -> ScheduleError {
        ScheduleError(code: code, message: message, line: line, source: source)
    }

    private func resolveZone(warnings: inout [String]) throws(ScheduleError) -> (ZoneConverter, String?) {
        if let name = FieldText.optional(timeZoneName) {
            guard let zone = ZoneConverter.ianaZone(named: name) else {
                throw error(
                    .invalidTimeZone,
                    "time_zone_name is not an IANA time zone name (such as Europe/Berlin); correct it or remove it.",
                    line: timeZoneLine)
            }
            return (ZoneConverter(timeZone: zone), zone.identifier)
        }
        let candidates = days.lazy.compactMap(\.start) + events.lazy.compactMap(\.date)
        for text in candidates.prefix(64) {
            if let offset = TimestampParser.parseISO(text)?.offset { return (ZoneConverter(.fixed(offset)), nil) }
        }
        warnings.append(
            "no time_zone_name and no UTC offsets: local times read in \(configuration.fallbackTimeZone.identifier)")
        return (ZoneConverter(timeZone: configuration.fallbackTimeZone), nil)
    }

    private func instant(_ text: String?, zone: ZoneConverter, what: String, line: Int?) throws(ScheduleError) -> Date?
    {
        guard let text = FieldText.optional(text) else { return nil }
        guard let parsed = TimestampParser.parseISO(text) else {
            throw error(
                .invalidDate, "\(what) is not an ISO 8601 date or date-time (yyyy-MM-dd'T'HH:mm:ssZ).", line: line)
        }
        let seconds = parsed.secondsSinceEpoch ?? zone.instant(for: parsed.local)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    func build() throws(ScheduleError) -> ScheduleDocument {
        var extraWarnings = warnings
        let (zone, zoneName) = try resolveZone(warnings: &extraWarnings)
        var dayChangeSeconds = 0
        if let text = FieldText.optional(dayChange) {
            guard let seconds = TimestampParser.parseClockTime(text) else {
                throw error(.invalidDate, "day_change is not a time of day (HH:MM[:SS]).", line: nil)
            }
            dayChangeSeconds = seconds
        }
        // Days.
        var dayInfos: [DayInfo] = []
        var dayDates: [LocalDate?] = []
        var dayCutoffs: [Int] = []
        var dayIndexes: [Int] = []
        for (position, raw) in days.enumerated() {
            let index = raw.index ?? position + 1
            var date: LocalDate? = nil
            if let text = FieldText.optional(raw.date) {
                guard let parsed = TimestampParser.parseISO(text) else {
                    throw error(.invalidDate, "day date is not yyyy-MM-dd.", line: raw.line)
                }
                date = parsed.local.date
            }
            let start = try instant(raw.start, zone: zone, what: "day start", line: raw.line)
            let end = try instant(raw.end, zone: zone, what: "day end", line: raw.line)
            if date == nil, let start { date = zone.local(at: start).date }
            var cutoff = dayChangeSeconds
            if let start { cutoff = zone.local(at: start).secondOfDay }
            dayDates.append(date)
            dayCutoffs.append(cutoff)
            dayIndexes.append(index)
            if let date {
                dayInfos.append(
                    DayInfo(
                        index: index, date: date.isoString, midnight: zone.date(for: LocalDateTime(date: date)),
                        start: start, end: end))
            } else {
                extraWarnings.append("line \(raw.line ?? 0): day \(index) has no date; its events need <date>")
            }
        }
        // Events.
        var assembler = DocumentAssembler(source: source, maxSessions: configuration.limits.maxSessions)
        for room in declaredRooms { assembler.noteRoom(FieldText.optional(room)) }
        for raw in events {
            let position = raw.dayPosition
            let dayIndex = position < dayIndexes.count ? dayIndexes[position] : position + 1
            let start: Date
            if let dated = try instant(raw.date, zone: zone, what: "event date", line: raw.line) {
                start = dated
            } else if let clock = FieldText.optional(raw.start) {
                guard let seconds = TimestampParser.parseClockTime(clock) else {
                    throw error(.invalidDate, "event start is not a time of day (HH:MM).", line: raw.line)
                }
                guard position < dayDates.count, var date = dayDates[position] else {
                    throw error(
                        .missingElement, "event has a start time but neither its day nor the event has a date.",
                        line: raw.line)
                }
                if seconds < dayCutoffs[position] { date = date.adding(days: 1) }
                start = zone.date(for: LocalDateTime(date: date, secondOfDay: seconds))
            } else {
                throw error(
                    .missingElement, "event has neither <start> nor <date>; every event needs a start.", line: raw.line)
            }
            var minutes = 0
            if let text = FieldText.optional(raw.duration) {
                guard let seconds = DurationParser.parseClock(text) else {
                    throw error(.invalidDuration, "event duration is not HH:MM or H:MM:SS.", line: raw.line)
                }
                minutes = seconds / 60
            } else {
                assembler.warn("event without duration read as 0 minutes", line: raw.line)
            }
            let session = SessionInfo(
                guid: FieldText.guid(raw.guid),
                code: FieldText.optional(raw.code),
                eventID: raw.id.flatMap(SessionEventID.init),
                slug: FieldText.optional(raw.slug),
                title: FieldText.optional(raw.title) ?? "",
                subtitle: FieldText.optional(raw.subtitle),
                abstract: FieldText.optional(raw.abstract),
                details: FieldText.optional(raw.details),
                start: start,
                end: start.addingTimeInterval(TimeInterval(minutes * 60)),
                duration: minutes,
                language: FieldText.optional(raw.language),
                type: FieldText.optional(raw.type),
                url: FieldText.optional(raw.url),
                status: FieldText.status(raw.status),
                dayIndex: dayIndex,
                roomName: FieldText.optional(raw.room),
                trackName: FieldText.optional(raw.track),
                persons: raw.persons)
            try assembler.add(session, line: raw.line)
        }
        let conference = ConferenceInfo(
            acronym: FieldText.optional(acronym),
            title: FieldText.optional(title),
            timeZone: zoneName,
            start: try instant(conferenceStart, zone: zone, what: "conference start", line: nil),
            end: try instant(conferenceEnd, zone: zone, what: "conference end", line: nil),
            version: FieldText.optional(version),
            source: source)
        return assembler.makeDocument(
            conference: conference, days: dayInfos, format: format, extraWarnings: extraWarnings)
    }
}
