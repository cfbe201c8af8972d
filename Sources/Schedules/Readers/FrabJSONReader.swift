import Foundation

/// Reads frab JSON v1 schedules (`{"schedule": {"version", "conference": {…, "days": [{"rooms": {…}}]}}}`).
///
/// Lenient about missing optional fields and about numbers written as strings (and the reverse). The rooms of a day
/// are read in the file's order of their keys (found by a scan of the bytes, which also gives each event its line
/// for warnings), after the conference's `rooms` list when it has one; `tracks` give track colours. Zone, day,
/// repeat-run and duplicate rules are those of ``FrabXMLReader``. Nesting depth is checked on the bytes before
/// Foundation parses them.
public struct FrabJSONReader: Sendable {
    /// Limits and fallback zone.
    public var configuration: ScheduleReaderConfiguration

    /// Creates a reader.
    public init(configuration: ScheduleReaderConfiguration = .default) {
        self.configuration = configuration
    }

    /// Reads a frab JSON file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes (UTF-8).
    ///   - source: The file name or URL, for errors and the conference identity of last resort.
    /// - Throws: ``ScheduleError`` with code `tooLarge`, `tooDeeplyNested`, `notWellFormed` (not JSON),
    ///   `unsupportedFormat` (no `schedule.conference` object), `missingElement`, `invalidDate`,
    ///   `invalidDuration` or `invalidTimeZone`.
    /// - Complexity: O(n) in the input.
    public func read(_ data: Data, source: String) throws(ScheduleError) -> ScheduleDocument {
        let limits = configuration.limits
        try ScheduleReader.checkSize(data, source: source, limits: limits)
        let (depth, depthLine) = data.withUnsafeBytes { raw in
            JSONShape.nestingDepth(of: raw.bindMemory(to: UInt8.self), limit: limits.maxNestingDepth)
        }
        guard depth <= limits.maxNestingDepth else {
            throw ScheduleError(
                code: .tooDeeplyNested,
                message: "JSON nests deeper than \(limits.maxNestingDepth) levels; a schedule needs about 8.",
                line: depthLine, source: source)
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw ScheduleError(
                code: .notWellFormed,
                message: "The input is not well-formed JSON; check that the download completed and is the JSON export.",
                line: Self.line(in: error), source: source)
        }
        guard let schedule = (root as? [String: Any])?["schedule"] as? [String: Any],
            let conference = schedule["conference"] as? [String: Any]
        else {
            throw ScheduleError(
                code: .unsupportedFormat,
                message: "The JSON has no \"schedule\".\"conference\" object; it is not a frab JSON schedule.",
                source: source)
        }
        let outline = data.withUnsafeBytes { FrabJSONOutline(bytes: $0.bindMemory(to: UInt8.self)) }
        var builder = FrabScheduleBuilder(source: source, configuration: configuration, format: .frabJSON)
        builder.reserveEvents(forInputBytes: data.count)
        builder.version = LenientJSON.string(schedule["version"])
        builder.acronym = LenientJSON.string(conference["acronym"])
        builder.title = LenientJSON.string(conference["title"])
        builder.subtitle = LenientJSON.string(conference["subtitle"])
        builder.conferenceURL = LenientJSON.string(conference["url"])
        builder.baseURL = LenientJSON.string(conference["base_url"]) ?? LenientJSON.string(schedule["base_url"])
        builder.conferenceStart = LenientJSON.string(conference["start"])
        builder.conferenceEnd = LenientJSON.string(conference["end"])
        builder.timeZoneName = LenientJSON.string(conference["time_zone_name"])
        builder.dayChange = LenientJSON.string(conference["day_change"])
        for case let room as [String: Any] in conference["rooms"] as? [Any] ?? [] {
            builder.declareRoom(LenientJSON.string(room["name"]), guid: LenientJSON.string(room["guid"]))
        }
        for case let track as [String: Any] in conference["tracks"] as? [Any] ?? [] {
            guard let name = FieldText.optional(LenientJSON.string(track["name"])) else { continue }
            builder.declaredTracks.append((name, FieldText.optional(LenientJSON.string(track["color"]))))
        }
        let days = conference["days"] as? [Any] ?? []
        for (position, dayValue) in days.enumerated() {
            guard let day = dayValue as? [String: Any] else {
                builder.warnings.append("day \(position + 1) is not an object; ignored")
                builder.days.append(FrabRawDay())
                continue
            }
            builder.days.append(
                FrabRawDay(
                    index: LenientJSON.int(day["index"]), date: LenientJSON.string(day["date"]),
                    start: LenientJSON.string(day["day_start"]), end: LenientJSON.string(day["day_end"])))
            let rooms = day["rooms"] as? [String: Any] ?? [:]
            // The file's order of the room keys; any key the scan missed follows in name order.
            var roomNames = (outline.roomKeys[position] ?? []).filter { rooms[$0] != nil }
            roomNames += rooms.keys.filter { !roomNames.contains($0) }.sorted()
            for roomName in roomNames {
                builder.declareRoom(roomName)
                for (index, value) in (rooms[roomName] as? [Any] ?? []).enumerated() {
                    guard let event = value as? [String: Any] else { continue }
                    let line = outline.eventLines[.init(day: position, room: roomName, index: index)]
                    builder.events.append(Self.event(event, room: roomName, dayPosition: position, line: line))
                }
            }
        }
        return try builder.build()
    }

    private static func event(_ event: [String: Any], room: String, dayPosition: Int, line: Int?) -> FrabRawEvent {
        var raw = FrabRawEvent(line: line, dayPosition: dayPosition)
        raw.guid = LenientJSON.string(event["guid"])
        raw.id = LenientJSON.string(event["id"])
        raw.code = LenientJSON.string(event["code"])
        raw.slug = LenientJSON.string(event["slug"])
        raw.title = LenientJSON.string(event["title"])
        raw.subtitle = LenientJSON.string(event["subtitle"])
        raw.abstract = LenientJSON.string(event["abstract"])
        raw.details = LenientJSON.string(event["description"])
        raw.date = LenientJSON.string(event["date"])
        raw.start = LenientJSON.string(event["start"])
        raw.duration = LenientJSON.string(event["duration"])
        raw.room = LenientJSON.string(event["room"]) ?? room
        raw.track = LenientJSON.string(event["track"])
        raw.type = LenientJSON.string(event["type"])
        raw.language = LenientJSON.string(event["language"])
        raw.url = LenientJSON.string(event["url"])
        raw.status = LenientJSON.string(event["status"]) ?? LenientJSON.string(event["state"])
        raw.feedbackURL = LenientJSON.string(event["feedback_url"])
        raw.doNotRecord =
            LenientJSON.flag(event["do_not_record"])
            || LenientJSON.flag((event["recording"] as? [String: Any])?["optout"])
        for key in ["links", "attachments"] {
            for value in event[key] as? [Any] ?? [] {
                if let url = FieldText.optional(LenientJSON.string(value)) {
                    raw.links.append(LinkInfo(title: url, url: url))
                } else if let link = value as? [String: Any],
                    let url = FieldText.optional(LenientJSON.string(link["url"]) ?? LenientJSON.string(link["href"]))
                {
                    raw.links.append(
                        LinkInfo(title: FieldText.optional(LenientJSON.string(link["title"])) ?? url, url: url))
                }
            }
        }
        for case let person as [String: Any] in event["persons"] as? [Any] ?? [] {
            guard
                let name = FieldText.optional(
                    LenientJSON.string(person["public_name"]) ?? LenientJSON.string(person["name"]))
            else { continue }
            let guid =
                FieldText.guid(LenientJSON.string(person["guid"]))
                ?? FieldText.optional(LenientJSON.string(person["code"]))
            raw.persons.append(
                PersonInfo(name: name, guid: guid, id: FieldText.optional(LenientJSON.string(person["id"]))))
        }
        return raw
    }

    /// Foundation's JSON errors say "around line N, column M" in their debug description.
    private static func line(in error: any Error) -> Int? {
        let text = (error as NSError).userInfo.values.map { "\($0)" }.joined(separator: " ")
        guard let range = text.range(of: "line ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
