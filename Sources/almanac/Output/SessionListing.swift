import AlmanacWire
import Foundation

/// Sessions as a listing: a marker (★ favourite, ✗ cancelled, `gone` for a favourite no schedule holds any more),
/// when, room, title, track, conference; CSV and TSV get raw ISO dates, guid and URI instead of the human columns.
enum SessionListing {
    static func make(
        _ sessions: [SessionSummary],
        favorites: Set<String>,
        display: TimeDisplay,
        showConference: Bool? = nil
    ) -> Listing {
        let showConference = showConference ?? (Set(sessions.compactMap(\.conference)).count > 1)
        var columns: [Listing.Column] = [
            .init(header: "", key: "marker", visibility: .tableOnly),
            .init(header: "WHEN", key: "when", visibility: .tableOnly),
            .init(header: "start", key: "start", visibility: .dataOnly),
            .init(header: "end", key: "end", visibility: .dataOnly),
            .init(header: "ROOM", key: "room", isFlexible: true),
            .init(header: "TITLE", key: "title", isFlexible: true, isPrimary: true),
            .init(header: "TRACK", key: "track", isFlexible: true, isOptional: true),
        ]
        if showConference { columns.append(.init(header: "CONF", key: "conference", isFlexible: true)) }
        columns += [
            .init(header: "favorite", key: "favorite", visibility: .dataOnly),
            .init(header: "status", key: "status", visibility: .dataOnly),
            .init(header: "guid", key: "guid", visibility: .dataOnly),
            .init(header: "uri", key: "uri", visibility: .dataOnly),
        ]
        let rows = sessions.map { session -> [Listing.Cell] in
            let isFavorite = favorites.contains(session.guid)
            let marker = session.isGone ? "gone" : (session.isCancelled ? "✗" : (isFavorite ? "★" : ""))
            let style: TextStyle = session.isGone || session.isCancelled ? .red : (isFavorite ? .yellow : .plain)
            var cells: [Listing.Cell] = [
                .init(marker, style: style),
                .init(display.span(session), style: .cyan),
                .init(session.start.map { WireDate.string(from: $0) } ?? ""),
                .init(session.end.map { WireDate.string(from: $0) } ?? ""),
                .init(session.room ?? ""),
                .init(session.title, style: session.isCancelled || session.isGone ? .dim : .plain),
                .init(session.track ?? ""),
            ]
            if showConference { cells.append(.init(session.conference ?? "")) }
            cells += [
                .init(isFavorite ? "true" : "false"),
                .init(session.isGone ? "gone" : (session.isCancelled ? "cancelled" : "confirmed")),
                .init(session.guid),
                .init(session.uri),
            ]
            return cells
        }
        return Listing(columns: columns, rows: rows, objects: sessions.map { .object($0.raw.json) })
    }
}

/// Any objects as a listing: one column per value key (or per requested field).
enum ObjectListing {
    static func make(_ objects: [WireObject], fields: [String]?, display: TimeDisplay) -> Listing {
        var keys: [String] = []
        if let fields {
            keys = fields
        } else {
            var seen = Set<String>()
            for object in objects {
                for key in object.values.keys where seen.insert(key).inserted { keys.append(key) }
            }
        }
        let columns = keys.map { key in
            Listing.Column(header: key, key: key, isFlexible: true)
        }
        let rows = objects.map { object -> [Listing.Cell] in
            let zone = object.values["conference.timeZone"]?.stringValue.flatMap(ConferenceZone.timeZone(named:))
            return keys.map { key in
                let value = lookup(key, in: object.values)
                return Listing.Cell(human(value, display: display, zone: zone), raw: raw(value))
            }
        }
        return Listing(columns: columns, rows: rows, objects: objects.map { .object($0.json) })
    }

    /// A value by key path: the literal key first (`room.name` as the daemon sends it), else nested objects.
    static func lookup(_ path: String, in values: JSONObject) -> JSONValue? {
        if let direct = values[path] { return direct }
        var current: JSONValue? = .object(values)
        for component in path.split(separator: ".") { current = current?[String(component)] }
        return current
    }

    /// A value for people: dates in the display zone, lists joined.
    static func human(_ value: JSONValue?, display: TimeDisplay, zone: TimeZone?) -> String {
        guard let value else { return "" }
        switch value {
        case .string(let text):
            if text.count >= 16, text.contains("T") || text.contains(" "), let date = WireDate.date(from: text) {
                return display.moment(date, sessionZone: zone)
            }
            return TextWidth.singleLine(text)
        case .array(let elements):
            return elements.map { human($0, display: display, zone: zone) }.joined(separator: ", ")
        default:
            return raw(value)
        }
    }

    /// A value for scripts: strings as they are, null empty, structures as compact JSON.
    static func raw(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .null: return ""
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double: return value.encodedString()
        case .array, .object: return value.encodedString()
        }
    }
}
