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
    /// `<links>` and `<attachments>` (JSON `links`, `attachments`), in file order.
    var links: [LinkInfo] = []
    var feedbackURL: String?
    var doNotRecord = false

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

/// Resolves frab days and events into a document (the rules are those of ``FrabXMLReader``).
///
/// The conference zone is `time_zone_name` (an IANA name, else `invalidTimeZone`); else the zone of the UTC offsets
/// written on the day starts and ends and the event dates (``OffsetZoneMatcher``); else the configured zone; else
/// the fallback zone with a warning.
///
/// Event starts: `date` with a UTC offset is the instant (floating `date` values are read in the conference zone);
/// else `start` (`HH:MM`) on the day's date, moved to the next calendar date when earlier than the day's cut-off
/// (the time of day of the day's window start as written, else the configured day change, else `day_change`, else
/// none).
///
/// Days are windows: the file's `<day start end>`, else the day change (configured, else `day_change`, else
/// 06:00) on the day's date to the day change on the next date. A day's date is the local date of its window start
/// when the file writes one (some exporters write `<day date>` in UTC), else the date as written. A session belongs
/// to the day it was written in when that day's window holds its start, else to the first day whose window does,
/// else (in no window) to the day it was written in.
struct FrabScheduleBuilder {
    static let defaultDayChange = 6 * 3600

    var source: String
    var configuration: ScheduleReaderConfiguration
    var format: ScheduleFormat
    var version: String?
    var acronym: String?
    var title: String?
    var subtitle: String?
    /// The conference's web site (`url`).
    var conferenceURL: String?
    /// Where the schedule lives (`base_url`); relative link addresses are resolved against it.
    var baseURL: String?
    var conferenceStart: String?
    var conferenceEnd: String?
    var timeZoneName: String?
    var timeZoneLine: Int?
    var dayChange: String?
    var days: [FrabRawDay] = []
    /// Rooms named by the file in order (frab `<room name guid>`, JSON `rooms` and room keys), even when empty.
    var declaredRooms: [(name: String, guid: String?)] = []
    /// Tracks named by the file in order (JSON `tracks`), with their colours.
    var declaredTracks: [(name: String, color: String?)] = []
    var events: [FrabRawEvent] = []
    var warnings: [String] = []

    init(source: String, configuration: ScheduleReaderConfiguration, format: ScheduleFormat) {
        self.source = source
        self.configuration = configuration
        self.format = format
    }

    /// Makes room for the events of an input of `byteCount` bytes, at most one per ``minimumEventBytes`` (and no
    /// more than the session limit), so that the list is not copied as it grows: growing it by doubling copied and
    /// first touched twice its final size (a generated file of a million sessions: a sixth of reading it, perf).
    /// Room reserved beyond the events read costs address space only: pages nothing writes are never mapped in.
    mutating func reserveEvents(forInputBytes byteCount: Int) {
        events.reserveCapacity(min(byteCount / Self.minimumEventBytes, configuration.limits.maxSessions))
    }

    /// The fewest bytes a frab event takes in practice: an `<event>` with the elements every real file writes
    /// (`<date>`, `<start>`, `<duration>`, `<room>`, `<title>`, and id and guid) takes more; FOSDEM's take 1 to 2 kB.
    /// A file of smaller events still reads as before, its list growing past the reserved room.
    static let minimumEventBytes = 256

    /// Declares a room in file order (once).
    mutating func declareRoom(_ name: String?, guid: String? = nil) {
        guard let name = FieldText.optional(name) else { return }
        if let index = declaredRooms.firstIndex(where: { $0.name == name }) {
            if declaredRooms[index].guid == nil { declaredRooms[index].guid = guid }
        } else {
            declaredRooms.append((name, guid))
        }
    }

    private func error(_ code: ScheduleError.Code, _ message: String, line: Int?) -> ScheduleError {
        ScheduleError(code: code, message: message, line: line, source: source)
    }

    private struct Zone {
        var converter: ZoneConverter
        var name: String
        var source: TimeZoneSource
    }

    private func resolveZone(warnings: inout [String]) throws(ScheduleError) -> Zone {
        if let name = FieldText.optional(timeZoneName) {
            guard let zone = ZoneConverter.ianaZone(named: name) else {
                throw error(
                    .invalidTimeZone,
                    "time_zone_name is not an IANA time zone name (such as Europe/Berlin); correct it or remove it.",
                    line: timeZoneLine)
            }
            return Zone(converter: ZoneConverter(timeZone: zone), name: OffsetZoneMatcher.name(of: zone), source: .file)
        }
        var samples: [OffsetSample] = []
        let written = days.lazy.flatMap { [$0.start, $0.end] }.compactMap { $0 } + events.lazy.compactMap(\.date)
        for text in written {
            guard let parsed = TimestampParser.parseISO(text), let offset = parsed.offset,
                let instant = parsed.secondsSinceEpoch
            else { continue }
            samples.append(OffsetSample(instant: instant, offset: offset))
        }
        if !samples.isEmpty {
            let match = OffsetZoneMatcher.match(samples, configured: configuration.timeZone)
            warnings += match.warnings
            return Zone(converter: match.converter, name: match.name, source: .offsets)
        }
        if let configured = configuration.timeZone {
            return Zone(
                converter: ZoneConverter(timeZone: configured), name: OffsetZoneMatcher.name(of: configured),
                source: .configured)
        }
        let fallback = configuration.fallbackTimeZone
        warnings.append(
            "no time_zone_name, no UTC offsets and no configured zone: local times read in "
                + "\(OffsetZoneMatcher.name(of: fallback)) (an assumption); set the file's timeZone to correct it")
        return Zone(
            converter: ZoneConverter(timeZone: fallback), name: OffsetZoneMatcher.name(of: fallback), source: .assumed)
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

    /// A link address as written, resolved against `base_url` when it is a path on the schedule's host
    /// (frab writes attachments as `/system/…`).
    func absoluteAddress(_ text: String?) -> String? {
        guard let text = FieldText.optional(text) else { return nil }
        guard text.hasPrefix("/"), let base = FieldText.optional(baseURL).flatMap({ URL(string: $0) }),
            base.scheme != nil, base.host != nil, let resolved = URL(string: text, relativeTo: base)
        else { return text }
        return resolved.absoluteURL.absoluteString
    }

    private struct Days {
        var infos: [DayInfo] = []
        /// For each `<day>` position: its index in `infos`, nil when the day has no date.
        var infoAt: [Int?] = []
        /// For each `<day>` position: the local date `<start>` times are read on.
        var dates: [LocalDate?] = []
        /// For each `<day>` position: the cut-off in seconds after midnight.
        var cutoffs: [Int] = []
        /// For each `<day>` position: its index as written.
        var indexes: [Int] = []

        /// The day a session starting at `start`, written in the day at `position`, belongs to.
        func index(for start: Date, writtenAt position: Int) -> Int {
            func holds(_ day: DayInfo) -> Bool {
                guard let from = day.start, let to = day.end else { return false }
                return from <= start && start < to
            }
            if position < infoAt.count, let own = infoAt[position], holds(infos[own]) { return infos[own].index }
            if let other = infos.first(where: holds) { return other.index }
            return position < indexes.count ? indexes[position] : position + 1
        }
    }

    private func resolveDays(zone: ZoneConverter, fileDayChange: Int?, warnings: inout [String]) throws(ScheduleError)
        -> Days
    {
        let dayChange = configuration.dayChange ?? fileDayChange ?? Self.defaultDayChange
        var result = Days()
        for (position, raw) in days.enumerated() {
            let index = raw.index ?? position + 1
            var date: LocalDate? = nil
            if let text = FieldText.optional(raw.date) {
                guard let parsed = TimestampParser.parseISO(text) else {
                    throw error(.invalidDate, "day date is not yyyy-MM-dd.", line: raw.line)
                }
                date = parsed.local.date
            }
            var start = try instant(raw.start, zone: zone, what: "day start", line: raw.line)
            var end = try instant(raw.end, zone: zone, what: "day end", line: raw.line)
            if let start { date = zone.local(at: start).date }
            result.cutoffs.append(
                start.map { zone.local(at: $0).secondOfDay } ?? configuration.dayChange ?? fileDayChange ?? 0)
            result.dates.append(date)
            result.indexes.append(index)
            guard let date else {
                result.infoAt.append(nil)
                warnings.append("line \(raw.line ?? 0): day \(index) has no date; its events need <date>")
                continue
            }
            if start == nil { start = zone.date(for: LocalDateTime(date: date, secondOfDay: dayChange)) }
            if end == nil { end = zone.date(for: LocalDateTime(date: date.adding(days: 1), secondOfDay: dayChange)) }
            result.infoAt.append(result.infos.count)
            result.infos.append(
                DayInfo(
                    index: index, date: date.isoString, midnight: zone.date(for: LocalDateTime(date: date)),
                    start: start, end: end))
        }
        return result
    }

    func build() throws(ScheduleError) -> ScheduleDocument {
        var extraWarnings = warnings
        let zone = try resolveZone(warnings: &extraWarnings)
        var fileDayChange: Int? = nil
        if let text = FieldText.optional(dayChange) {
            guard let seconds = TimestampParser.parseClockTime(text) else {
                throw error(.invalidDate, "day_change is not a time of day (HH:MM[:SS]).", line: nil)
            }
            fileDayChange = seconds
        }
        let days = try resolveDays(zone: zone.converter, fileDayChange: fileDayChange, warnings: &extraWarnings)
        var assembler = DocumentAssembler(source: source, maxSessions: configuration.limits.maxSessions)
        for room in declaredRooms { assembler.noteRoom(room.name, guid: room.guid) }
        for track in declaredTracks { assembler.noteTrack(track.name, color: track.color) }
        assembler.reserveCapacity(events.count)
        for raw in events {
            let session = try session(from: raw, zone: zone.converter, days: days, assembler: &assembler)
            try assembler.add(session, line: raw.line)
        }
        let conference = ConferenceInfo(
            acronym: FieldText.optional(configuration.acronym) ?? FieldText.optional(acronym),
            title: FieldText.optional(title),
            timeZone: zone.name,
            timeZoneSource: zone.source,
            subtitle: FieldText.optional(subtitle),
            url: FieldText.optional(conferenceURL) ?? FieldText.optional(baseURL),
            start: try instant(conferenceStart, zone: zone.converter, what: "conference start", line: nil),
            end: try instant(conferenceEnd, zone: zone.converter, what: "conference end", line: nil),
            version: FieldText.optional(version),
            source: source)
        return assembler.makeDocument(
            conference: conference, days: days.infos, format: format, extraWarnings: extraWarnings)
    }

    private func session(from raw: FrabRawEvent, zone: ZoneConverter, days: Days, assembler: inout DocumentAssembler)
        throws(ScheduleError) -> SessionInfo
    {
        let position = raw.dayPosition
        let start: Date
        if let dated = try instant(raw.date, zone: zone, what: "event date", line: raw.line) {
            start = dated
        } else if let clock = FieldText.optional(raw.start) {
            guard let seconds = TimestampParser.parseClockTime(clock) else {
                throw error(.invalidDate, "event start is not a time of day (HH:MM).", line: raw.line)
            }
            guard position < days.dates.count, var date = days.dates[position] else {
                throw error(
                    .missingElement, "event has a start time but neither its day nor the event has a date.",
                    line: raw.line)
            }
            if seconds < days.cutoffs[position] { date = date.adding(days: 1) }
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
        let links = raw.links.compactMap { link -> LinkInfo? in
            guard let url = absoluteAddress(link.url) else { return nil }
            return LinkInfo(title: FieldText.optional(link.title) ?? url, url: url)
        }
        return SessionInfo(
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
            dayIndex: days.index(for: start, writtenAt: position),
            roomName: FieldText.optional(raw.room),
            trackName: FieldText.optional(raw.track),
            persons: raw.persons,
            links: links,
            feedbackURL: absoluteAddress(raw.feedbackURL),
            doNotRecord: raw.doNotRecord)
    }
}
