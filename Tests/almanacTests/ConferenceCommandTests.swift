import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// The commands against a fake daemon serving ``CongressSchedule``: what a person reads on stdout and stderr, and
/// the exit status.
@Suite(.timeLimit(.minutes(2)))
struct ConferenceCommandTests {
    func run(
        _ schedule: FakeSchedule = CongressSchedule.schedule(),
        _ arguments: [String]...,
        environment: [String: String] = [:]
    ) async throws -> [ProcessRunner.Result] {
        var results: [ProcessRunner.Result] = []
        try await FakeDaemon.serve(FakeScheduleHandler(schedule: schedule)) { socket in
            for arguments in arguments {
                results.append(try await FakeDaemon.almanac(arguments, socket: socket, extraEnvironment: environment))
            }
        }
        return results
    }

    func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
    }

    // MARK: Zones and days

    @Test func aDayIsTheConferenceDayPastMidnightShownInTheFixedOffset() async throws {
        let results = try await run(
            CongressSchedule.schedule(),
            ["day", "2024-12-27", "--conference", "38c3"],
            ["day", "2024-12-27", "--conference", "38c3", "--utc"],
            ["day", "2024-12-27", "--conference", "38c3", "--tz", "America/New_York"]
        )
        #expect(results.map(\.status) == [0, 0, 0], "\(results.map(\.stderr))")
        #expect(
            lines(results[0].stdout) == [
                "  WHEN                           ROOM    TITLE",
                "  Fri 27 Dec 11:00–11:30 +01:00  Saal 1  Opening",
                "  Sat 28 Dec 01:00–02:00 +01:00  Saal 2  Late night talk",
            ]
        )
        // --utc and --tz change the clock, not the day: the same two sessions.
        #expect(
            lines(results[1].stdout).dropFirst() == [
                "  Fri 27 Dec 10:00–10:30 UTC  Saal 1  Opening",
                "  Sat 28 Dec 00:00–01:00 UTC  Saal 2  Late night talk",
            ])
        #expect(
            lines(results[2].stdout).dropFirst() == [
                "  Fri 27 Dec 05:00–05:30 EST  Saal 1  Opening",
                "  Fri 27 Dec 19:00–20:00 EST  Saal 2  Late night talk",
            ])
    }

    @Test func sessionsWithoutADayFollowTheSixOClockDayChange() async throws {
        // Two conferences in different zones: the day zone is the machine's (TZ=UTC); the personal dinner at 01:30
        // UTC on the 28th belongs to the 27th.
        let results = try await run(CongressSchedule.schedule(), ["day", "2024-12-27", "--format", "csv"])
        #expect(results[0].status == 0, "\(results[0].stderr)")
        let titles = lines(results[0].stdout).dropFirst().map { $0.split(separator: ",")[3] }
        #expect(titles == ["Opening", "Late night talk", "Dinner with Ana"])
    }

    @Test func atHalfPastOneTodayIsTheDayThatStartedTheMorningBefore() async throws {
        let at = "2024-12-28T01:30"  // no offset: read in the conference's zone, +01:00
        let results = try await run(
            CongressSchedule.schedule(),
            ["day", "--conference", "38c3", "--at", at, "--format", "tsv"],
            ["now", "--day", "--conference", "38c3", "--at", at, "--format", "tsv"],
            ["now", "--conference", "38c3", "--at", at, "--format", "tsv"],
            ["day", "tomorrow", "--conference", "38c3", "--at", at, "--format", "tsv"],
            ["grid", "--conference", "38c3", "--at", at, "--width", "60"]
        )
        #expect(results.map(\.status) == [0, 0, 0, 0, 0], "\(results.map(\.stderr))")
        func titles(_ result: ProcessRunner.Result) -> [String] {
            lines(result.stdout).dropFirst().map { String($0.split(separator: "\t")[3]) }
        }
        #expect(titles(results[0]) == ["Opening", "Late night talk"])
        #expect(titles(results[1]) == ["Opening", "Late night talk"])
        #expect(titles(results[2]) == ["Late night talk"])
        #expect(titles(results[3]) == ["Day two keynote", "Workshop"])
        let grid = lines(results[4].stdout)
        #expect(grid.first == "Fri 27 Dec 2024 · 38c3")
        #expect(grid[2] == "10:00")
        #expect(grid.contains { $0.hasPrefix("11:00 ┌Opening") })
        #expect(grid.contains { $0.hasPrefix("01:30▶") })
        #expect(grid.last == "★ favourite  ✗ cancelled  rows of 15 min, +01:00")
    }

    // MARK: Conference names

    @Test(arguments: ["38C3", "38th chaos communication congress", "38C3.XML", "38c3"])
    func conferenceIsResolvedFromNameTitleOrFile(name: String) async throws {
        let results = try await run(
            CongressSchedule.schedule(),
            ["day", "2024-12-28", "--conference", name, "--format", "csv"],
            ["search", "o", "--conference", name, "--format", "csv"]
        )
        #expect(results.map(\.status) == [0, 0], "\(results.map(\.stderr))")
        #expect(
            lines(results[0].stdout).dropFirst().map { $0.split(separator: ",")[3] } == ["Day two keynote", "Workshop"])
        #expect(results[1].stdout.contains("Opening") && !results[1].stdout.contains("Nix"))
    }

    @Test func searchTakesTheTitleOfAnotherConference() async throws {
        let results = try await run(CongressSchedule.schedule(), ["search", "i", "--conference", "fosdem 2021"])
        #expect(results[0].status == 0, "\(results[0].stderr)")
        #expect(lines(results[0].stdout).dropFirst() == ["  Sat 6 Feb 10:00–10:30 CET  H.2215  Nix in production"])
    }

    @Test(arguments: [
        ["now", "--conference", "39c3"], ["changes", "39C3"], ["grid", "--conference", "39c3"],
        ["fav", "list", "--conference", "39c3"], ["export", "ics", "--conference", "39c3"],
        ["export", "html", "--conference", "39c3"],
    ])
    func anUnknownConferenceExits4ListingTheNames(arguments: [String]) async throws {
        let result = try await run(CongressSchedule.schedule(), arguments)[0]
        #expect(result.status == 4)
        #expect(result.stdout.isEmpty)
        let name = arguments.last!
        #expect(
            result.stderr
                == "almanac: unknown_conference: no conference is named \"\(name)\" (known: 38c3, fosdem-2021)\n")
    }

    @Test func helpDocumentsExit4ForConferences() async throws {
        let result = try await FakeDaemon.almanac(["--help"], socket: nil)
        #expect(result.stdout.contains("4  not found: an object, or a conference (unknown_conference)"))
    }

    // MARK: Changes

    static let removedEntry: JSONObject = [
        "uri": "x-almanac://38c3/Session/p9", "entity": "Session", "store": "38c3.xml", "values": [:],
        "previous": [
            "status": "removed", "title": "Removed talk", "start": "2024-12-27T16:00:00+01:00",
            "end": "2024-12-27T17:00:00+01:00", "room.name": "Saal 2", "conference.acronym": "38c3",
            "guid": "c-removed",
        ],
    ]

    static var changes: JSONObject {
        var cancelledOpening = CongressSchedule.opening.json
        var values = CongressSchedule.opening.values
        values["status"] = "cancelled"
        cancelledOpening["values"] = .object(values)
        cancelledOpening["previous"] = ["status": "statusCancelled"]
        var moved = CongressSchedule.keynote.json
        moved["previous"] = ["start": "2024-12-28T10:00:00+01:00"]
        let malformed: JSONObject = [
            "entity": "Session", "uri": "", "values": ["title": "Odd entry"], "previous": ["status": "removed"],
        ]
        var added = CongressSchedule.workshop.json
        added["previous"] = [:]
        return [
            "added": [.object(added)],
            "cancelled": [.object(removedEntry), .object(cancelledOpening), .object(malformed)],
            "moved": [.object(moved)], "changed": [],
        ]
    }

    @Test func changesListRemovedSessionsWithTheirOldTimeRoomAndTitle() async throws {
        let results = try await run(
            CongressSchedule.schedule(changes: Self.changes),
            ["changes"], ["changes", "--format", "csv"], ["changes", "38C3"]
        )
        #expect(results.map(\.status) == [0, 0, 0], "\(results.map(\.stderr))")
        #expect(
            lines(results[0].stdout) == [
                "  CHANGE     WHEN                           ROOM    TITLE            BEFORE",
                "  ADDED      Sat 28 Dec 11:30–12:30 +01:00  Saal 2  Workshop",
                "  REMOVED    Fri 27 Dec 16:00–17:00 +01:00  Saal 2  Removed talk     removed from the schedule",
                "  REMOVED                                           Odd entry        removed from the schedule",
                "  CANCELLED  Fri 27 Dec 11:00–11:30 +01:00  Saal 1  Opening",
                "  MOVED      Sat 28 Dec 11:00–12:00 +01:00  Saal 1  Day two keynote  was start Sat 28 Dec 10:00 +01:00",
            ]
        )
        #expect(results[1].stdout.contains("false,removed,2024-12-27T15:00:00Z,Saal 2,Removed talk,"))
        #expect(results[2].stdout == results[0].stdout)
    }

    // MARK: Favourites

    @Test func favListNamesFavouritesWhoseSessionIsGone() async throws {
        let favorites = [
            CongressSchedule.favorite(1, guid: "c-opening"),
            CongressSchedule.favorite(
                2, guid: "c-snap",
                snapshot: ["sessionTitle": "Snapshot talk", "sessionStart": "2024-12-27T18:00:00+01:00"]),
            CongressSchedule.favorite(3, guid: "c-removed"),
            CongressSchedule.favorite(4, guid: "c-ghost"),
        ]
        let results = try await run(
            CongressSchedule.schedule(favorites: favorites, changes: Self.changes),
            ["fav", "list"], ["fav", "list", "--format", "csv"]
        )
        #expect(results.map(\.status) == [0, 0], "\(results.map(\.stderr))")
        #expect(
            lines(results[0].stdout) == [
                "      WHEN                           ROOM    TITLE          CONF",
                "★     Fri 27 Dec 11:00–11:30 +01:00  Saal 1  Opening        38c3",
                "gone  Fri 27 Dec 18:00 +01:00                Snapshot talk  38c3",
                "gone  Fri 27 Dec 16:00–17:00 +01:00  Saal 2  Removed talk   38c3",
                "gone                                         c-ghost        38c3",
            ]
        )
        #expect(
            results[0].stderr == "almanac: 3 favourites refer to sessions no longer in any schedule (marked gone)\n")
        #expect(lines(results[1].stdout).filter { $0.contains(",gone,") }.count == 3)
        #expect(results[1].stderr.isEmpty)
    }

    @Test func favAddKeepsTheSessionsTitleAndStart() async throws {
        let handler = FakeScheduleHandler(schedule: CongressSchedule.schedule())
        try await FakeDaemon.serve(handler) { socket in
            let result = try await FakeDaemon.almanac(["fav", "add", "c-keynote"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "★ Day two keynote (Sat 28 Dec 11:00–12:00 +01:00)\n")
        }
        let values = try #require(handler.recorder.inserted.first?.values)
        #expect(values["sessionTitle"] == "Day two keynote")
        #expect(values["sessionStart"]?.dateValue == WireDate.date(from: "2024-12-28T11:00:00+01:00"))
        #expect(values["conferenceAcronym"] == "38c3")
    }

    @Test func favAddStillWorksWithADaemonThatHasNoSnapshotKeys() async throws {
        var handler = FakeScheduleHandler(schedule: CongressSchedule.schedule())
        handler.refusedInsertKeys = ["sessionTitle", "sessionStart"]
        try await FakeDaemon.serve(handler) { socket in
            let result = try await FakeDaemon.almanac(["fav", "add", "c-keynote"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let inserted = handler.recorder.inserted
        #expect(inserted.count == 1)
        #expect(inserted.first?.values["sessionGUID"] == "c-keynote")
        #expect(inserted.first?.values["sessionTitle"] == nil)
    }

    @Test func conflictsIgnoreCopiesOfTheSameSession() async throws {
        var copy = CongressSchedule.keynote
        copy.uri = "x-almanac://38c3-1/Session/p3"
        copy.store = "38c3 (1).xml"
        let schedule = CongressSchedule.schedule(
            sessions: [CongressSchedule.keynote, copy, CongressSchedule.workshop],
            favorites: [
                CongressSchedule.favorite(1, guid: "c-keynote"), CongressSchedule.favorite(2, guid: "c-workshop"),
            ]
        )
        let result = try await run(schedule, ["conflicts"])[0]
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            lines(result.stdout) == [
                "WHEN                           FIRST                     SECOND             OVERLAP",
                "Sat 28 Dec 11:30–12:00 +01:00  Day two keynote (Saal 1)  Workshop (Saal 2)   30 min",
            ]
        )
    }

    @Test func aSessionNeverConflictsWithItsCopy() {
        var copy = CongressSchedule.keynote
        copy.uri = "x-almanac://38c3-1/Session/p3"
        let sessions = [CongressSchedule.keynote, copy].map(SessionSummary.init)
        #expect(ConflictsCommand.conflicts(sessions).isEmpty)
        var otherConference = copy
        otherConference.values["conference.acronym"] = "39c3"
        #expect(
            ConflictsCommand.conflicts([CongressSchedule.keynote, otherConference].map(SessionSummary.init)).count == 1)
    }
}
