import AlmanacWire
import Foundation

/// A `Session` object as the client shows it, read leniently from the daemon's values: a related object's field
/// may come as a key path (`room.name`) or nested (`room: {name}`).
struct SessionSummary: Sendable, Hashable {
    var uri: String
    var guid: String
    var title: String
    var subtitle: String?
    var abstract: String?
    var start: Date?
    var end: Date?
    var room: String?
    var track: String?
    /// The room's place in the schedule file (`room.position`): the grid's column order.
    var roomPosition: Int?
    /// The track's colour as the file gives it (`#RRGGBB`).
    var trackColor: String?
    var language: String?
    var conference: String?
    var timeZone: TimeZone?
    var url: String?
    var isCancelled: Bool
    /// Whether the session is gone from every schedule (a favourite kept only by its snapshot).
    var isGone = false
    var persons: [String]
    var raw: WireObject

    /// The key paths the client asks the daemon for.
    static let properties = [
        "guid", "code", "title", "subtitle", "abstract", "start", "end", "duration", "language", "type", "url",
        "status", "room.name", "room.position", "track.name", "track.color", "conference.acronym",
        "conference.timeZone",
    ]

    init(_ object: WireObject) {
        let values = object.values
        func value(_ path: String) -> JSONValue? {
            if let direct = values[path], !direct.isNull { return direct }
            var current: JSONValue? = .object(values)
            for component in path.split(separator: ".") { current = current?[String(component)] }
            return current.flatMap { $0.isNull ? nil : $0 }
        }
        func string(_ path: String) -> String? { value(path)?.stringValue }

        uri = object.uri
        guid = string("guid") ?? object.uri
        title = string("title") ?? "(untitled)"
        subtitle = string("subtitle")
        abstract = string("abstract")
        start = value("start")?.dateValue
        end = value("end")?.dateValue
        if end == nil, let start, let minutes = value("duration")?.doubleValue {
            end = start.addingTimeInterval(minutes * 60)
        }
        room = string("room.name")
        track = string("track.name")
        roomPosition = value("room.position")?.doubleValue.map { Int($0) }
        trackColor = string("track.color")
        language = string("language")
        conference = string("conference.acronym")
        timeZone = string("conference.timeZone").flatMap(ConferenceZone.timeZone(named:))
        url = string("url")
        isCancelled = string("status")?.lowercased() == "cancelled"
        persons = value("persons.name")?.arrayValue?.compactMap(\.stringValue) ?? []
        raw = object
    }

    /// Whether the two sessions overlap in time, and by how long.
    func overlap(with other: SessionSummary) -> TimeInterval? {
        guard let start, let end, let otherStart = other.start, let otherEnd = other.end else { return nil }
        let overlap = min(end, otherEnd).timeIntervalSince(max(start, otherStart))
        return overlap > 0 ? overlap : nil
    }
}
