import Foundation
import SafeXML

/// Reads frab / Pentabarf XML schedules (`<schedule>` root) with the libxml2 streaming parser.
///
/// Lenient about content (no real file validates against the published XSD: unknown elements are skipped,
/// `version`, `guid`, `<date>` and `time_zone_name` may be missing as in FOSDEM's legacy files) but strict
/// about syntax: input that is not well-formed is rejected with an error naming the line.
///
/// Rules (the full text is the Reading rules article):
/// - The conference zone is `time_zone_name` (IANA, else `invalidTimeZone`); else the zone of the UTC offsets on
///   the `<date>`s and `<day start end>`s (the configured zone when it agrees with all, else a well-known zone that
///   does, else a fixed offset); else ``ScheduleReaderConfiguration/timeZone``; else
///   ``ScheduleReaderConfiguration/fallbackTimeZone`` with a warning. ``ConferenceInfo/timeZoneSource`` says which.
/// - An event's start is its `<date>` when that carries a UTC offset; else `<start>` (`HH:MM`) on its day's
///   date in the conference zone, moved to the next calendar date when earlier than the day's cut-off.
/// - Days are windows (`<day start end>`, else the day change on the date to the next); a session belongs to the
///   day whose window holds its start, preferring the day it is written in.
/// - Durations are `HH:MM` or `H:MM:SS`.
/// - Text is kept as text: escaped HTML in abstracts stays literal HTML.
/// - Repeat runs (the same identity at another start) are kept under a suffixed identity; true duplicates are
///   merged; both with a warning naming the line.
/// - The room is the event's `<room>`, else the enclosing `<room name=…>`; rooms keep the file's `<room>` order.
/// - `<status>` or `<state>` "cancelled"/"canceled" marks a session cancelled.
/// - `<links>`, `<attachments>`, `<feedback_url>`, `<recording><optout>`, `<person id guid>`, `<subtitle>`,
///   `<url>`/`<base_url>` fill the matching fields.
public struct FrabXMLReader: Sendable {
    /// Limits and fallback zone.
    public var configuration: ScheduleReaderConfiguration

    /// Creates a reader.
    public init(configuration: ScheduleReaderConfiguration = .default) {
        self.configuration = configuration
    }

    /// Reads a frab XML file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes; the encoding comes from the XML declaration (UTF-8 by default).
    ///   - source: The file name or URL, for errors and the conference identity of last resort.
    /// - Throws: ``ScheduleError`` with code `notWellFormed` (naming the line), `invalidEncoding`, `tooLarge`,
    ///   `tooDeeplyNested`, `unsupportedFormat` (the root is not `<schedule>`), `missingElement`, `invalidDate`,
    ///   `invalidDuration` or `invalidTimeZone`.
    /// - Complexity: O(n) in the input; memory grows with the number of sessions, not the nesting.
    public func read(_ data: Data, source: String) throws(ScheduleError) -> ScheduleDocument {
        let limits = configuration.limits
        try ScheduleReader.checkSize(data, source: source, limits: limits)
        var builder = FrabScheduleBuilder(source: source, configuration: configuration, format: .frabXML)
        builder.reserveEvents(forInputBytes: data.count)
        do {
            var parser = try XMLPullParser(
                data: data, name: source,
                limits: XMLLimits(maxDepth: limits.maxNestingDepth, maxBytes: limits.maxInputBytes))
            var root: XMLElementStart? = nil
            while let event = try parser.next() {
                if case .startElement(let start) = event {
                    root = start
                    break
                }
            }
            guard let root, root.name == "schedule" else {
                throw ScheduleError(
                    code: .unsupportedFormat,
                    message: "The root element is not <schedule>; the file is not a frab/Pentabarf schedule.",
                    line: root?.line, source: source)
            }
            try Self.readSchedule(&parser, into: &builder)
        } catch let error as XMLError {
            throw Self.scheduleError(from: error, source: source)
        } catch let error as ScheduleError {
            throw error
        } catch {
            throw ScheduleError(code: .notWellFormed, message: "Unexpected failure: \(error)", source: source)
        }
        return try builder.build()
    }

    private static func readSchedule(_ parser: inout XMLPullParser, into builder: inout FrabScheduleBuilder) throws {
        while let event = try parser.next() {
            guard case .startElement(let start) = event else {
                if case .endElement = event { return }  // </schedule>
                continue
            }
            switch start.name {
            case "version": builder.version = try parser.readText()
            case "base_url":
                let text = try parser.readText()
                if builder.baseURL == nil { builder.baseURL = text }
            case "conference": try readConference(&parser, into: &builder)
            case "day": try readDay(&parser, start: start, into: &builder)
            default: try parser.skipElement()
            }
        }
    }

    private static func readConference(_ parser: inout XMLPullParser, into builder: inout FrabScheduleBuilder) throws {
        while let event = try parser.next() {
            guard case .startElement(let start) = event else {
                if case .endElement = event { return }
                continue
            }
            switch start.name {
            case "acronym": builder.acronym = try parser.readText()
            case "title": builder.title = try parser.readText()
            case "subtitle": builder.subtitle = try parser.readText()
            case "url": builder.conferenceURL = try parser.readText()
            case "base_url": builder.baseURL = try parser.readText()
            case "start": builder.conferenceStart = try parser.readText()
            case "end": builder.conferenceEnd = try parser.readText()
            case "day_change": builder.dayChange = try parser.readText()
            case "time_zone_name":
                builder.timeZoneLine = start.line
                builder.timeZoneName = try parser.readText()
            default: try parser.skipElement()
            }
        }
    }

    private static func readDay(
        _ parser: inout XMLPullParser, start day: XMLElementStart, into builder: inout FrabScheduleBuilder
    ) throws {
        let position = builder.days.count
        builder.days.append(
            FrabRawDay(
                line: day.line, index: day[attribute: "index"].flatMap { Int($0.trimmingSpaces) },
                date: day[attribute: "date"], start: day[attribute: "start"], end: day[attribute: "end"]))
        var roomStack: [String?] = []
        while let event = try parser.next() {
            switch event {
            case .startElement(let start):
                if start.name == "room" {
                    let name = start[attribute: "name"]
                    builder.declareRoom(name, guid: start[attribute: "guid"])
                    roomStack.append(name)
                } else if start.name == "event" {
                    let room = roomStack.last ?? nil
                    builder.events.append(try readEvent(&parser, start: start, room: room, dayPosition: position))
                } else {
                    try parser.skipElement()
                }
            case .endElement(let name):
                if name == "room" { _ = roomStack.popLast() } else if name == "day" { return }
            case .text:
                continue
            }
        }
    }

    private static func readEvent(
        _ parser: inout XMLPullParser, start event: XMLElementStart, room: String?, dayPosition: Int
    ) throws -> FrabRawEvent {
        var raw = FrabRawEvent(line: event.line, dayPosition: dayPosition)
        raw.guid = event[attribute: "guid"]
        raw.id = event[attribute: "id"]
        raw.code = event[attribute: "code"]
        while let next = try parser.next() {
            guard case .startElement(let start) = next else {
                if case .endElement = next { break }
                continue
            }
            switch start.name {
            case "date": raw.date = try parser.readText()
            case "start": raw.start = try parser.readText()
            case "duration": raw.duration = try parser.readText()
            case "room": raw.room = try parser.readText()
            case "slug": raw.slug = try parser.readText()
            case "url": raw.url = try parser.readText()
            case "title": raw.title = try parser.readText()
            case "subtitle": raw.subtitle = try parser.readText()
            case "track": raw.track = try parser.readText()
            case "type": raw.type = try parser.readText()
            case "language": raw.language = try parser.readText()
            case "abstract": raw.abstract = try parser.readText()
            case "description": raw.details = try parser.readText()
            case "guid":
                let text = try parser.readText()
                if raw.guid == nil { raw.guid = text }
            case "code":
                let text = try parser.readText()
                if raw.code == nil { raw.code = text }
            case "status", "state": raw.status = try parser.readText()
            case "persons": raw.persons = try readPersons(&parser)
            case "links", "attachments": raw.links += try readLinks(&parser)
            case "feedback_url": raw.feedbackURL = try parser.readText()
            case "recording": raw.doNotRecord = try readRecordingOptOut(&parser) || raw.doNotRecord
            case "do_not_record": raw.doNotRecord = FieldText.flag(try parser.readText()) || raw.doNotRecord
            default: try parser.skipElement()
            }
        }
        if FieldText.optional(raw.room) == nil { raw.room = room }
        return raw
    }

    private static func readPersons(_ parser: inout XMLPullParser) throws -> [PersonInfo] {
        var persons: [PersonInfo] = []
        while let next = try parser.next() {
            guard case .startElement(let start) = next else {
                if case .endElement = next { break }
                continue
            }
            guard start.name == "person" else {
                try parser.skipElement()
                continue
            }
            let name = try parser.readText()
            guard let trimmed = FieldText.optional(name) else { continue }
            persons.append(
                PersonInfo(
                    name: trimmed, guid: FieldText.guid(start[attribute: "guid"]),
                    id: FieldText.optional(start[attribute: "id"])))
        }
        return persons
    }

    /// `<link href="…">title</link>` and `<attachment href="…">title</attachment>` children, in order; the address
    /// is kept as written here (the builder resolves relative ones).
    private static func readLinks(_ parser: inout XMLPullParser) throws -> [LinkInfo] {
        var links: [LinkInfo] = []
        while let next = try parser.next() {
            guard case .startElement(let start) = next else {
                if case .endElement = next { break }
                continue
            }
            guard start.name == "link" || start.name == "attachment" else {
                try parser.skipElement()
                continue
            }
            let title = try parser.readText()
            guard let url = FieldText.optional(start[attribute: "href"]) else { continue }
            links.append(LinkInfo(title: FieldText.optional(title) ?? url, url: url))
        }
        return links
    }

    /// Whether `<recording>` holds `<optout>true</optout>`.
    private static func readRecordingOptOut(_ parser: inout XMLPullParser) throws -> Bool {
        var optOut = false
        while let next = try parser.next() {
            guard case .startElement(let start) = next else {
                if case .endElement = next { break }
                continue
            }
            if start.name == "optout" {
                optOut = FieldText.flag(try parser.readText())
            } else {
                try parser.skipElement()
            }
        }
        return optOut
    }

    static func scheduleError(from error: XMLError, source: String) -> ScheduleError {
        let code: ScheduleError.Code
        switch error.code {
        case .tooDeep: code = .tooDeeplyNested
        case .tooLarge, .textTooLong: code = .tooLarge
        case .invalidEncoding: code = .invalidEncoding
        default: code = .notWellFormed
        }
        var message = error.message
        if error.line > 0 { message += " (line \(error.line), column \(error.column))" }
        return ScheduleError(code: code, message: message, line: error.line > 0 ? error.line : nil, source: source)
    }
}
