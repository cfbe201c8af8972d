import Foundation

/// Reads iCalendar (RFC 5545) files: each `VEVENT` (or each instance of a recurring one) becomes a session.
///
/// - Lines are unfolded on bytes before UTF-8 decoding; CRLF and LF line ends are accepted; invalid UTF-8
///   is replaced (U+FFFD) with a warning.
/// - `TZID` names are resolved from the system zone database; a `VTIMEZONE` whose TZID is not an IANA
///   name is applied from its STANDARD/DAYLIGHT offsets; otherwise the calendar zone is used with a warning.
/// - The calendar zone (floating times, all-day events, days, ``ConferenceInfo/timeZone``) is `X-WR-TIMEZONE`, else
///   the first IANA `TZID` of the file (`file`); else the zone named by the offsets of custom `VTIMEZONE`s
///   (`offsets`); else ``ScheduleReaderConfiguration/timeZone`` (`configured`); else the fallback zone, UTC, with a
///   warning (`assumed`).
/// - Days run from the day change (configured, else 06:00) on each local date to the next: an event at 01:30
///   belongs to the day before.
/// - All-day events (`VALUE=DATE`) start at local midnight of their date in the calendar zone and end at
///   midnight of `DTEND` (exclusive), else after `DURATION`, else after one day; `isAllDay` is set.
/// - `RRULE` (DAILY, WEEKLY, MONTHLY, YEARLY with COUNT, UNTIL, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH),
///   `RDATE`, `EXDATE` and `RECURRENCE-ID` overrides are expanded to instances, at most
///   ``ScheduleReaderLimits/maxRecurrenceInstances`` per event and within
///   ``ScheduleReaderLimits/recurrenceHorizon`` of the first instance; cut expansions add a warning.
/// - `SUMMARY` → title, `DESCRIPTION` → details, `LOCATION` → room, first `CATEGORIES` value → track,
///   `URL` → url and first link, `ATTACH` → links, `COLOR` → the track's colour, `STATUS:CANCELLED` → cancelled,
///   `ATTENDEE` `CN`s (else the `ORGANIZER` `CN`) → persons, `X-WR-CALNAME` → conference title and identity (else
///   `X-WR-CALDESC` as title), the calendar's `URL` → conference url, the newest `LAST-MODIFIED`/`DTSTAMP` →
///   release date.
public struct ICalendarReader: Sendable {
    /// Limits and fallback zone.
    public var configuration: ScheduleReaderConfiguration

    /// Creates a reader.
    public init(configuration: ScheduleReaderConfiguration = .default) {
        self.configuration = configuration
    }

    /// Reads an iCalendar file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - source: The file name or URL, for errors and the conference identity of last resort.
    /// - Throws: ``ScheduleError`` with code `tooLarge`, `notWellFormed` (unbalanced or truncated
    ///   components, no `VCALENDAR`), `tooDeeplyNested`, `missingElement` (an event without `DTSTART`),
    ///   `invalidDate`, `invalidDuration` or `invalidRecurrence`, naming the line.
    /// - Complexity: O(n) in the input plus the number of expanded instances.
    public func read(_ data: Data, source: String) throws(ScheduleError) -> ScheduleDocument {
        try ScheduleReader.checkSize(data, source: source, limits: configuration.limits)
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var lexer = ICalendarLexer(bytes: bytes)
        var malformedLines: [Int] = []
        let lines = lexer.contentLines { malformedLines.append($0) }
        let roots = try ICalendarComponent.parseTree(
            lines, source: source, maxDepth: configuration.limits.maxNestingDepth)
        guard let calendar = roots.first(where: { $0.name == "VCALENDAR" }) else {
            throw ScheduleError(
                code: .notWellFormed, message: "No BEGIN:VCALENDAR component; the file is not an iCalendar file.",
                line: roots.first?.line, source: source)
        }
        var builder = ICalendarEventBuilder(calendar: calendar, configuration: configuration, source: source)
        if lexer.sawInvalidUTF8 { builder.assembler.warn("invalid UTF-8 replaced with U+FFFD") }
        if !malformedLines.isEmpty {
            let shown = malformedLines.prefix(5).map(String.init).joined(separator: ", ")
            builder.assembler.warn("\(malformedLines.count) line(s) without a property value ignored (lines \(shown))")
        }
        if roots.count > 1 {
            builder.assembler.warn("only the first VCALENDAR is read; \(roots.count - 1) more ignored")
        }
        return try builder.build()
    }
}
