import AlmanacWire
import ArgumentParser

struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "What changed in the last schedule update: added, cancelled, moved, changed.",
        discussion: """
            Favourites come first in each group and are marked ★.

            EXAMPLES:
              almanac changes
              almanac changes 38c3 --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "Only this conference (acronym).") var conference: String?

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.changes(.init(conference: conference)))
        let changes: WireResponse.Changes
        do { changes = try WireResponse.Changes(json: body) } catch { throw ClientError.protocolFailure(error.message) }
        if options.format == .json {
            context.write(JSONValue.object(body).encodedString() + "\n")
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        let groups: [(String, [WireResponse.ChangeEntry])] = [
            ("added", changes.added), ("cancelled", changes.cancelled), ("moved", changes.moved),
            ("changed", changes.changed),
        ]
        let listing = Self.listing(groups, favorites: favorites, display: context.display)
        if options.format == .table {
            guard !listing.rows.isEmpty else {
                context.write("No changes.\n")
                return
            }
        }
        context.print(listing)
    }

    /// One row per change, grouped in the order given, favourites first within each group.
    static func listing(
        _ groups: [(String, [WireResponse.ChangeEntry])],
        favorites: Set<String>,
        display: TimeDisplay
    ) -> Listing {
        var rows: [[Listing.Cell]] = []
        var objects: [JSONValue] = []
        for (kind, entries) in groups {
            let sorted = entries.map { ($0, SessionSummary($0.object)) }.enumerated().sorted { lhs, rhs in
                let left = favorites.contains(lhs.element.1.guid)
                let right = favorites.contains(rhs.element.1.guid)
                return left != right ? left : lhs.offset < rhs.offset
            }
            for (_, (entry, session)) in sorted {
                let isFavorite = favorites.contains(session.guid)
                let style: TextStyle = kind == "cancelled" ? .red : (kind == "added" ? .green : .yellow)
                rows.append([
                    .init(isFavorite ? "★" : "", raw: isFavorite ? "true" : "false", style: .yellow),
                    .init(kind.uppercased(), raw: kind, style: style),
                    .init(display.span(session), raw: session.start.map { WireDate.string(from: $0) } ?? ""),
                    .init(session.room ?? ""),
                    .init(session.title),
                    .init(describe(entry.previous, display: display, zone: session.timeZone), raw: JSONValue.object(entry.previous).encodedString()),
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
                .init(header: "TITLE", key: "title", isFlexible: true),
                .init(header: "BEFORE", key: "previous", isFlexible: true),
                .init(header: "guid", key: "guid", visibility: .dataOnly),
            ],
            rows: rows,
            objects: objects
        )
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

import Foundation
