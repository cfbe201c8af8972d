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
        builder.version = JSONValue.string(schedule["version"])
        builder.acronym = JSONValue.string(conference["acronym"])
        builder.title = JSONValue.string(conference["title"])
        builder.subtitle = JSONValue.string(conference["subtitle"])
        builder.conferenceURL = JSONValue.string(conference["url"])
        builder.baseURL = JSONValue.string(conference["base_url"]) ?? JSONValue.string(schedule["base_url"])
        builder.conferenceStart = JSONValue.string(conference["start"])
        builder.conferenceEnd = JSONValue.string(conference["end"])
        builder.timeZoneName = JSONValue.string(conference["time_zone_name"])
        builder.dayChange = JSONValue.string(conference["day_change"])
        for case let room as [String: Any] in conference["rooms"] as? [Any] ?? [] {
            builder.declareRoom(JSONValue.string(room["name"]), guid: JSONValue.string(room["guid"]))
        }
        for case let track as [String: Any] in conference["tracks"] as? [Any] ?? [] {
            guard let name = FieldText.optional(JSONValue.string(track["name"])) else { continue }
            builder.declaredTracks.append((name, FieldText.optional(JSONValue.string(track["color"]))))
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
                    index: JSONValue.int(day["index"]), date: JSONValue.string(day["date"]),
                    start: JSONValue.string(day["day_start"]), end: JSONValue.string(day["day_end"])))
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
        raw.guid = JSONValue.string(event["guid"])
        raw.id = JSONValue.string(event["id"])
        raw.code = JSONValue.string(event["code"])
        raw.slug = JSONValue.string(event["slug"])
        raw.title = JSONValue.string(event["title"])
        raw.subtitle = JSONValue.string(event["subtitle"])
        raw.abstract = JSONValue.string(event["abstract"])
        raw.details = JSONValue.string(event["description"])
        raw.date = JSONValue.string(event["date"])
        raw.start = JSONValue.string(event["start"])
        raw.duration = JSONValue.string(event["duration"])
        raw.room = JSONValue.string(event["room"]) ?? room
        raw.track = JSONValue.string(event["track"])
        raw.type = JSONValue.string(event["type"])
        raw.language = JSONValue.string(event["language"])
        raw.url = JSONValue.string(event["url"])
        raw.status = JSONValue.string(event["status"]) ?? JSONValue.string(event["state"])
        raw.feedbackURL = JSONValue.string(event["feedback_url"])
        raw.doNotRecord =
            JSONValue.flag(event["do_not_record"])
            || JSONValue.flag((event["recording"] as? [String: Any])?["optout"])
        for key in ["links", "attachments"] {
            for value in event[key] as? [Any] ?? [] {
                if let url = FieldText.optional(JSONValue.string(value)) {
                    raw.links.append(LinkInfo(title: url, url: url))
                } else if let link = value as? [String: Any],
                    let url = FieldText.optional(JSONValue.string(link["url"]) ?? JSONValue.string(link["href"]))
                {
                    raw.links.append(
                        LinkInfo(title: FieldText.optional(JSONValue.string(link["title"])) ?? url, url: url))
                }
            }
        }
        for case let person as [String: Any] in event["persons"] as? [Any] ?? [] {
            guard
                let name = FieldText.optional(
                    JSONValue.string(person["public_name"]) ?? JSONValue.string(person["name"]))
            else { continue }
            let guid =
                FieldText.guid(JSONValue.string(person["guid"])) ?? FieldText.optional(JSONValue.string(person["code"]))
            raw.persons.append(
                PersonInfo(name: name, guid: guid, id: FieldText.optional(JSONValue.string(person["id"]))))
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
