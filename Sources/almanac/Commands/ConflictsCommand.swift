import AlmanacWire
import ArgumentParser

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Favourite sessions that overlap, and by how much.",
        discussion: """
            A session served twice (the same conference dropped in two files) counts once: a favourite never \
            conflicts with itself or with a copy of itself (the same conference name and guid).

            EXAMPLES:
              almanac conflicts
              almanac conflicts --conference ssd26 --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: conferenceHelp) var conference: String?

    struct Conflict {
        var first: SessionSummary
        var second: SessionSummary
        var minutes: Int
    }

    /// Every overlapping pair, by the first session's start. Cancelled sessions do not conflict, and copies of
    /// one session (the same conference name and guid) count as one.
    static func conflicts(_ sessions: [SessionSummary]) -> [Conflict] {
        var seen = Set<SessionIdentity>()
        let active = sessions.filter { !$0.isCancelled && $0.start != nil }.sorted {
            ($0.start!, $0.room ?? "", $0.guid, $0.uri) < ($1.start!, $1.room ?? "", $1.guid, $1.uri)
        }
        .filter { seen.insert(SessionIdentity($0)).inserted }
        var result: [Conflict] = []
        for (index, first) in active.enumerated() {
            for second in active[(index + 1)...] {
                guard let secondStart = second.start, let firstEnd = first.end, secondStart < firstEnd else { break }
                if SessionIdentity(first) == SessionIdentity(second) { continue }
                if let overlap = first.overlap(with: second) {
                    result.append(Conflict(first: first, second: second, minutes: Int((overlap / 60).rounded())))
                }
            }
        }
        return result
    }

    /// When the two sessions both run: `Sat 28 Dec 11:30–12:00 CET`.
    static func overlapSpan(_ conflict: Conflict, display: TimeDisplay) -> String {
        guard let firstStart = conflict.first.start, let secondStart = conflict.second.start,
            let firstEnd = conflict.first.end, let secondEnd = conflict.second.end
        else { return display.span(conflict.first) }
        var window = conflict.first
        window.start = max(firstStart, secondStart)
        window.end = min(firstEnd, secondEnd)
        return display.span(window)
    }

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let conference = try context.conferenceName()
        let keys = try context.favoriteObjects().map(FavoriteKey.init)
        let sessions = try context.sessions(guids: Array(Set(keys.map(\.guid))).sorted(), conference: conference)
        let found = Self.conflicts(sessions.filter { session in keys.contains { $0.matches(session) } })
        let listing = Listing(
            columns: [
                .init(header: "WHEN", key: "start"),
                .init(header: "FIRST", key: "first", isFlexible: true, isPrimary: true),
                .init(header: "SECOND", key: "second", isFlexible: true, isPrimary: true),
                .init(header: "OVERLAP", key: "overlapMinutes", alignment: .right),
            ],
            rows: found.map { conflict in
                [
                    .init(
                        Self.overlapSpan(conflict, display: context.display),
                        raw: conflict.second.start.map { WireDate.string(from: $0) } ?? ""),
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

/// Which session a session is across copies: its conference's name and its guid.
struct SessionIdentity: Hashable {
    var conference: String?
    var guid: String

    init(_ session: SessionSummary) {
        conference = session.conference
        guid = session.guid
    }
}
