import AlmanacWire
import ArgumentParser
import Foundation

struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "What changed in the last schedule update: added, removed, cancelled, moved, changed.",
        discussion: """
            REMOVED sessions are gone from the newer release (shown with the time, room and title they had); \
            CANCELLED ones are still in the schedule, marked cancelled. Favourites come first in each group and \
            are marked ★.

            EXAMPLES:
              almanac changes
              almanac changes SSD26 --format json
              almanac changes "Swift Server Days 2026"
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "Only this conference: its name (acronym), title or file name, in any case.") var conference:
        String?

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let body = try context.send(.changes(.init(conference: try context.conferenceName())))
        if options.format == .json {
            context.write(JSONValue.object(body).encodedString() + "\n")
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        let groups = Self.groups(body, zone: { context.zone(ofConference: $0) })
        let listing = Self.listing(groups, favorites: favorites, display: context.display)
        if options.format == .table, listing.rows.isEmpty {
            context.write("No changes.\n")
            return
        }
        context.print(listing)
    }

    /// One change as the client shows it.
    struct Row {
        /// `added`, `removed`, `cancelled`, `moved` or `changed`.
        var kind: String
        /// The session as it is now; for a removed session, as it was.
        var session: SessionSummary
        var previous: JSONObject
        var json: JSONObject
    }

    /// The answer's entries by kind, in the order shown. Read leniently: an entry that is not a well-formed
    /// object (a missing or empty URI, say) is still shown with what it has, never an error.
    static func groups(_ body: JSONObject, zone: (String?) -> TimeZone? = { _ in nil }) -> [(String, [Row])] {
        var added: [Row] = []
        var removed: [Row] = []
        var cancelled: [Row] = []
        var moved: [Row] = []
        var changed: [Row] = []
        func rows(_ key: String) -> [Row] {
            (body[key]?.arrayValue ?? []).compactMap(\.objectValue).map { row(kind: key, $0, zone: zone) }
        }
        added = rows("added")
        for row in rows("cancelled") {
            if row.kind == "removed" { removed.append(row) } else { cancelled.append(row) }
        }
        moved = rows("moved")
        changed = rows("changed")
        return [
            ("added", added), ("removed", removed), ("cancelled", cancelled), ("moved", moved), ("changed", changed),
        ]
    }

    /// One entry: the session's values, with a removed session's old values filled in from `previous`.
    static func row(kind: String, _ json: JSONObject, zone: (String?) -> TimeZone?) -> Row {
        let previous = json["previous"]?.objectValue ?? [:]
        var values = json["values"]?.objectValue ?? [:]
        var kind = kind
        if kind == "cancelled", previous["status"]?.stringValue == "removed" {
            kind = "removed"
            for (key, value) in previous.members where key != "status" && (values[key] == nil || values[key] == .null) {
                values[key] = value
            }
        }
        let object = WireObject(
            uri: json["uri"]?.stringValue ?? "",
            entity: json["entity"]?.stringValue ?? "Session",
            store: json["store"]?.stringValue ?? "",
            values: values
        )
        var session = SessionSummary(object)
        if session.timeZone == nil { session.timeZone = zone(session.conference) }
        return Row(kind: kind, session: session, previous: previous, json: json)
    }

    /// One row per change, grouped in the order given, favourites first within each group.
    static func listing(_ groups: [(String, [Row])], favorites: Set<String>, display: TimeDisplay) -> Listing {
        var rows: [[Listing.Cell]] = []
        var objects: [JSONValue] = []
        for (kind, entries) in groups {
            let sorted = entries.enumerated().sorted { lhs, rhs in
                let left = favorites.contains(lhs.element.session.guid)
                let right = favorites.contains(rhs.element.session.guid)
                return left != right ? left : lhs.offset < rhs.offset
            }
            for (_, entry) in sorted {
                let session = entry.session
                let isFavorite = favorites.contains(session.guid)
                let style: TextStyle =
                    kind == "added" ? .green : (kind == "removed" || kind == "cancelled" ? .red : .yellow)
                rows.append([
                    .init(isFavorite ? "★" : "", raw: isFavorite ? "true" : "false", style: .yellow),
                    .init(kind.uppercased(), raw: kind, style: style),
                    .init(display.span(session), raw: session.start.map { WireDate.string(from: $0) } ?? ""),
                    .init(session.room ?? ""),
                    .init(session.title),
                    .init(
                        before(entry, display: display),
                        raw: JSONValue.object(entry.previous).encodedString()
                    ),
                    .init(session.conference ?? ""),
                    .init(session.guid),
                ])
                var object = entry.json
                object["change"] = .string(kind)
                objects.append(.object(object))
            }
        }
        return Listing(
            columns: [
                .init(header: "", key: "favorite"), .init(header: "CHANGE", key: "change"),
                .init(header: "WHEN", key: "start"), .init(header: "ROOM", key: "room"),
                .init(header: "TITLE", key: "title", isFlexible: true, isPrimary: true),
                .init(header: "BEFORE", key: "previous", isFlexible: true),
                .init(header: "conference", key: "conference", visibility: .dataOnly),
                .init(header: "guid", key: "guid", visibility: .dataOnly),
            ],
            rows: rows,
            objects: objects
        )
    }

    /// What the BEFORE column says: `removed from the schedule`, or the old values of what changed.
    static func before(_ row: Row, display: TimeDisplay) -> String {
        switch row.kind {
        case "removed": return "removed from the schedule"
        case "cancelled":
            var previous = row.previous
            previous["status"] = nil
            return describe(previous, display: display, zone: row.session.timeZone)
        default: return describe(row.previous, display: display, zone: row.session.timeZone)
        }
    }

    /// `was Sat 27 Dec 11:00 CET, room.name Saal 1`.
    static func describe(_ previous: JSONObject, display: TimeDisplay, zone: TimeZone?) -> String {
        guard !previous.isEmpty else { return "" }
        let parts = previous.members.map { key, value in
            "\(key) " + ObjectListing.human(value, display: display, zone: zone)
        }
        return "was " + parts.joined(separator: ", ")
    }
}
