import AlmanacWire
import ArgumentParser

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Favourite sessions that overlap, and by how much.",
        discussion: """
            EXAMPLES:
              almanac conflicts
              almanac conflicts --format json
            """
    )

    @OptionGroup var options: ClientOptions

    struct Conflict {
        var first: SessionSummary
        var second: SessionSummary
        var minutes: Int
    }

    /// Every overlapping pair, by the first session's start. Cancelled sessions do not conflict.
    static func conflicts(_ sessions: [SessionSummary]) -> [Conflict] {
        let active = sessions.filter { !$0.isCancelled && $0.start != nil }.sorted {
            ($0.start!, $0.room ?? "", $0.guid) < ($1.start!, $1.room ?? "", $1.guid)
        }
        var result: [Conflict] = []
        for (index, first) in active.enumerated() {
            for second in active[(index + 1)...] {
                guard let secondStart = second.start, let firstEnd = first.end, secondStart < firstEnd else { break }
                if let overlap = first.overlap(with: second) {
                    result.append(Conflict(first: first, second: second, minutes: Int((overlap / 60).rounded())))
                }
            }
        }
        return result
    }

    func run() throws {
        let context = CommandContext(options: options)
        let guids = try context.favoriteGUIDs()
        let found = Self.conflicts(try context.sessions(guids: guids.sorted()))
        let listing = Listing(
            columns: [
                .init(header: "WHEN", key: "start"), .init(header: "FIRST", key: "first", isFlexible: true),
                .init(header: "SECOND", key: "second", isFlexible: true),
                .init(header: "OVERLAP", key: "overlapMinutes", alignment: .right),
            ],
            rows: found.map { conflict in
                [
                    .init(context.display.span(conflict.first), raw: conflict.first.start.map { WireDate.string(from: $0) } ?? ""),
                    .init("\(conflict.first.title) (\(conflict.first.room ?? "?"))", raw: conflict.first.guid),
                    .init("\(conflict.second.title) (\(conflict.second.room ?? "?"))", raw: conflict.second.guid),
                    .init("\(conflict.minutes) min", raw: String(conflict.minutes), style: .red),
                ]
            },
            objects: found.map { conflict in
                [
                    "first": .object(conflict.first.raw.json), "second": .object(conflict.second.raw.json),
                    "overlapMinutes": .int(conflict.minutes),
                ]
            }
        )
        if found.isEmpty, options.format == .table {
            context.write("No overlapping favourites.\n")
        } else {
            context.print(listing)
        }
    }
}
