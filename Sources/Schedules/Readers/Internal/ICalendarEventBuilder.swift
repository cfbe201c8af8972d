import Foundation

/// A date or date-time property resolved against its zone.
struct ResolvedTime {
    var local: LocalDateTime
    var zone: ZoneConverter
    var instant: Int64
    var isDate: Bool
}

/// Turns the `VEVENT`s of one `VCALENDAR` into sessions.
struct ICalendarEventBuilder {
    let calendar: ICalendarComponent
    let configuration: ScheduleReaderConfiguration
    let source: String
    var assembler: DocumentAssembler
    /// The zone for floating times, all-day events and day grouping.
    let calendarZone: ZoneConverter
    /// The conference zone's name: an IANA name, `UTC` or a fixed offset `+HH:MM`.
    let calendarZoneName: String
    let calendarZoneSource: TimeZoneSource
    private var zones: [String: ZoneConverter] = [:]
    private var warnedZones: Set<String> = []
    private let timeZoneComponents: [String: ICalendarComponent]

    init(calendar: ICalendarComponent, configuration: ScheduleReaderConfiguration, source: String) {
        self.calendar = calendar
        self.configuration = configuration
        self.source = source
        self.assembler = DocumentAssembler(source: source, maxSessions: configuration.limits.maxSessions)
        var components: [String: ICalendarComponent] = [:]
        for child in calendar.children where child.name == "VTIMEZONE" {
            if let id = child.property("TZID")?.value.trimmingSpaces, components[id] == nil { components[id] = child }
        }
        self.timeZoneComponents = components
        var zone: TimeZone? = nil
        if let name = calendar.property("X-WR-TIMEZONE")?.value {
            zone = ZoneConverter.ianaZone(named: name)
            if zone == nil { assembler.warn("X-WR-TIMEZONE is not a known IANA zone name; ignored") }
        }
        if zone == nil {
            for event in calendar.children where event.name == "VEVENT" {
                if let tzid = event.property("DTSTART")?.parameter("TZID"),
                    let resolved = ZoneConverter.ianaZone(named: tzid)
                {
                    zone = resolved
                    break
                }
            }
        }
        if let zone {
            calendarZone = ZoneConverter(timeZone: zone)
            calendarZoneName = OffsetZoneMatcher.name(of: zone)
            calendarZoneSource = .file
        } else if let match = Self.matchVTimeZoneOffsets(calendar, components: components, configuration) {
            calendarZone = match.converter
            calendarZoneName = match.name
            calendarZoneSource = .offsets
            for warning in match.warnings { assembler.warn(warning) }
        } else if let configured = configuration.timeZone {
            calendarZone = ZoneConverter(timeZone: configured)
            calendarZoneName = OffsetZoneMatcher.name(of: configured)
            calendarZoneSource = .configured
        } else {
            let fallback = configuration.fallbackTimeZone
            calendarZone = ZoneConverter(timeZone: fallback)
            calendarZoneName = OffsetZoneMatcher.name(of: fallback)
            calendarZoneSource = .assumed
            assembler.warn(
                "nothing names the calendar's zone (no X-WR-TIMEZONE, no IANA TZID) and none is configured: floating "
                    + "times and days read in \(calendarZoneName) (an assumption); set the file's timeZone to correct it"
            )
        }
    }

    /// The zone named by the offsets of event starts written with a `VTIMEZONE` whose TZID is not an IANA name, as
    /// frab offsets are named (``OffsetZoneMatcher``); nil when no start uses such a zone.
    private static func matchVTimeZoneOffsets(
        _ calendar: ICalendarComponent, components: [String: ICalendarComponent],
        _ configuration: ScheduleReaderConfiguration
    ) -> OffsetZoneMatcher.Match? {
        var rules: [String: VTimeZoneRules] = [:]
        var samples: [OffsetSample] = []
        for event in calendar.children where event.name == "VEVENT" {
            guard let property = event.property("DTSTART"), let tzid = property.parameter("TZID")?.trimmingSpaces,
                let parsed = TimestampParser.parseICalendar(property.value), !parsed.isDateOnly, parsed.offset == nil
            else { continue }
            if rules[tzid] == nil, let component = components[tzid] {
                rules[tzid] = VTimeZoneRules(component: component)
            }
            guard let zone = rules[tzid] else { continue }
            let converter = ZoneConverter(.custom(zone))
            let instant = converter.instant(for: parsed.local)
            samples.append(OffsetSample(instant: instant, offset: converter.offset(atUTC: instant)))
        }
        guard !samples.isEmpty else { return nil }
        return OffsetZoneMatcher.match(samples, configured: configuration.timeZone)
    }

    // MARK: Times

    private func error(_ code: ScheduleError.Code, _ message: String, line: Int) -> ScheduleError {
        ScheduleError(code: code, message: message, line: line, source: source)
    }

    private mutating func zone(forTZID tzid: String, line: Int) -> ZoneConverter {
        if let cached = zones[tzid] { return cached }
        let converter: ZoneConverter
        if let zone = ZoneConverter.ianaZone(named: tzid) {
            converter = ZoneConverter(timeZone: zone)
        } else if let component = timeZoneComponents[tzid], let rules = VTimeZoneRules(component: component) {
            converter = ZoneConverter(.custom(rules))
        } else {
            converter = calendarZone
            if warnedZones.insert(tzid).inserted {
                assembler.warn(
                    "TZID is neither an IANA name nor a usable VTIMEZONE; times read in the calendar zone",
                    line: line)
            }
        }
        zones[tzid] = converter
        return converter
    }

    /// Parses one value of a date or date-time property (`DTSTART`, `EXDATE`…) with the property's parameters.
    mutating func resolve(_ value: String, of property: ContentLine) throws(ScheduleError) -> ResolvedTime {
        guard let parsed = TimestampParser.parseICalendar(value) else {
            throw error(
                .invalidDate, "\(property.name) is not an iCalendar DATE or DATE-TIME (yyyyMMdd['T'HHmmss['Z']]).",
                line: property.line)
        }
        if parsed.isDateOnly || property.parameter("VALUE")?.uppercased() == "DATE" {
            let local = LocalDateTime(date: parsed.local.date)
            return ResolvedTime(
                local: local, zone: calendarZone, instant: calendarZone.instant(for: local), isDate: true)
        }
        if let utc = parsed.secondsSinceEpoch {
            let zone = ZoneConverter(.fixed(0))
            return ResolvedTime(local: parsed.local, zone: zone, instant: utc, isDate: false)
        }
        let zone: ZoneConverter
        if let tzid = property.parameter("TZID") {
            zone = self.zone(forTZID: tzid.trimmingSpaces, line: property.line)
        } else {
            zone = calendarZone
        }
        return ResolvedTime(local: parsed.local, zone: zone, instant: zone.instant(for: parsed.local), isDate: false)
    }

    /// All values of all properties with the name (`EXDATE`, `RDATE`), resolved.
    mutating func resolveList(_ name: String, in event: ICalendarComponent) throws(ScheduleError) -> [ResolvedTime] {
        var result: [ResolvedTime] = []
        for property in event.properties(name) {
            if property.parameter("VALUE")?.uppercased() == "PERIOD" { continue }
            for value in property.value.split(separator: ",") where !value.trimmingSpaces.isEmpty {
                result.append(try resolve(String(value), of: property))
            }
        }
        return result
    }

    // MARK: Events

    /// The fields of one `VEVENT`, with its resolved start and length.
    struct EventData {
        var component: ICalendarComponent
        var uid: String?
        var start: ResolvedTime
        /// Nominal length: whole days are added on the wall clock, seconds exactly.
        var length: NominalDuration
        var recurrenceID: ResolvedTime?
    }

    mutating func eventData(_ event: ICalendarComponent) throws(ScheduleError) -> EventData {
        guard let startProperty = event.property("DTSTART") else {
            throw error(.missingElement, "VEVENT without DTSTART; every event needs a start.", line: event.line)
        }
        let start = try resolve(startProperty.value, of: startProperty)
        var length = NominalDuration(days: start.isDate ? 1 : 0, seconds: 0)
        if let endProperty = event.property("DTEND") {
            let end = try resolve(endProperty.value, of: endProperty)
            if start.isDate {
                length = NominalDuration(
                    days: end.local.date.daysSinceEpoch - start.local.date.daysSinceEpoch, seconds: 0)
            } else {
                length = NominalDuration(days: 0, seconds: end.instant - start.instant)
            }
            if length.approximateSeconds < 0 {
                assembler.warn("DTEND before DTSTART; the event is read as instantaneous", line: endProperty.line)
                length = NominalDuration(days: 0, seconds: 0)
            }
        } else if let durationProperty = event.property("DURATION") {
            guard let parsed = DurationParser.parseISO8601(durationProperty.value) else {
                throw error(
                    .invalidDuration, "DURATION is not an ISO 8601 duration such as PT1H30M or P1D.",
                    line: durationProperty.line)
            }
            length = parsed
            if length.approximateSeconds < 0 {
                assembler.warn("negative DURATION; the event is read as instantaneous", line: durationProperty.line)
                length = NominalDuration(days: 0, seconds: 0)
            }
        }
        var recurrenceID: ResolvedTime? = nil
        if let property = event.property("RECURRENCE-ID") { recurrenceID = try resolve(property.value, of: property) }
        let uid = event.property("UID").flatMap { FieldText.optional($0.value) }
        return EventData(component: event, uid: uid, start: start, length: length, recurrenceID: recurrenceID)
    }

    /// Builds the session for an event occurrence starting at `local` in the event's zone.
    func session(from data: EventData, at local: LocalDateTime, recurrenceInstant: Int64?) -> SessionInfo {
        let event = data.component
        let startInstant = data.start.zone.instant(for: local)
        var endLocal = local
        endLocal.date = endLocal.date.adding(days: data.length.days)
        let endInstant =
            (data.length.days == 0 ? startInstant : data.start.zone.instant(for: endLocal)) + data.length.seconds
        var persons: [PersonInfo] = event.properties("ATTENDEE").compactMap { property in
            property.parameter("CN").flatMap { FieldText.optional($0) }.map { PersonInfo(name: $0) }
        }
        if persons.isEmpty,
            let organizer = event.property("ORGANIZER")?.parameter("CN").flatMap({ FieldText.optional($0) })
        {
            persons = [PersonInfo(name: organizer)]
        }
        func text(_ name: String) -> String? {
            event.property(name).flatMap { FieldText.optional(ICalendarText.unescape($0.value)) }
        }
        let track = event.properties("CATEGORIES").lazy.flatMap { ICalendarText.splitList($0.value) }.first
        var links: [LinkInfo] = []
        if let url = text("URL") { links.append(LinkInfo(title: url, url: url)) }
        for attachment in event.properties("ATTACH") where attachment.parameter("VALUE")?.uppercased() != "BINARY" {
            guard let url = FieldText.optional(attachment.value) else { continue }
            let title = ["FILENAME", "X-FILENAME", "X-LABEL"].lazy.compactMap {
                attachment.parameter($0).flatMap { FieldText.optional($0) }
            }.first
            links.append(LinkInfo(title: title ?? url, url: url))
        }
        return SessionInfo(
            uid: data.uid,
            recurrenceInstant: recurrenceInstant.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            title: text("SUMMARY") ?? "",
            details: text("DESCRIPTION"),
            start: Date(timeIntervalSince1970: TimeInterval(startInstant)),
            end: Date(timeIntervalSince1970: TimeInterval(endInstant)),
            isAllDay: data.start.isDate,
            language: event.property("SUMMARY")?.parameter("LANGUAGE"),
            url: text("URL"),
            status: FieldText.status(event.property("STATUS")?.value),
            roomName: text("LOCATION"),
            trackName: track,
            persons: persons,
            links: links)
    }
}
