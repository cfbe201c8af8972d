import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// show, the filters and the messages for empty answers, through the real daemon on the sample schedules.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PeopleCommandTests {
    static let guid = "78c50982-46d5-52ab-8fc6-cfd50eaa2fc0"

    func withSamples(_ body: (LiveDaemon) async throws -> Void) async throws {
        let daemon = try LiveDaemon(files: LiveDaemon.sampleFiles)
        do {
            try await body(daemon)
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }

    @Test func showPrintsOneSessionInTheConferencesZoneAndTheViewers() async throws {
        try await withSamples { daemon in
            let result = try await daemon.almanac(["show", Self.guid, "--width", "100"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "Structured concurrency in practice")
            // The machine runs in UTC (TZ=UTC): the viewer's time is added.
            #expect(
                lines.contains("  When        Mon 23 Nov 2026 09:30–10:00 CET (your time: Mon 23 Nov 08:30–09:00 UTC)"))
            #expect(lines.contains("  Conference  Swift Server Days 2026 (ssd26)"))
            #expect(lines.contains("  Room        Hall A"))
            #expect(lines.contains("  Speaker     Ada Example"))
            #expect(lines.contains("Abstract"))
            // The abstract's HTML is read, not shown.
            #expect(lines.contains("  Structured concurrency in practice: what we learned, with examples & pitfalls."))
            let json = try await daemon.almanac(["show", Self.guid, "--format", "json"])
            let object = try JSONValue(parsing: json.stdout)
            #expect(object["entity"]?.stringValue == "Session")
            #expect(object["values"]?["guid"]?.stringValue == Self.guid)
        }
    }

    @Test func showWithTextOfSeveralSessionsListsThemAndExits1() async throws {
        try await withSamples { daemon in
            let result = try await daemon.almanac(["show", "structured concurrency in practice"])
            #expect(result.status == 1)
            #expect(result.stdout.contains(Self.guid))
            #expect(result.stdout.contains("d5c797c7-0959-5160-86d5-d3678f2de866"))
            #expect(result.stderr.hasPrefix("almanac: ambiguous: "))
            let one = try await daemon.almanac(["show", "structured concurrency in practice", "--conference", "ssd26"])
            #expect(one.status == 0, "\(one.stderr)")
            let none = try await daemon.almanac(["show", "no such talk anywhere"])
            #expect(none.status == 4)
            #expect(none.stdout.isEmpty)
        }
    }

    @Test func filtersNarrowAndUnknownValuesListTheKnownOnes() async throws {
        try await withSamples { daemon in
            let day = try await daemon.almanac([
                "day", "2026-11-23", "--conference", "ssd26", "--room", "hall a", "--format", "tsv",
            ])
            #expect(day.status == 0, "\(day.stderr)")
            let rooms = Set(day.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: "\t")[2] })
            #expect(rooms == ["Hall A"])
            let track = try await daemon.almanac(["search", "the", "--track", "storage", "--format", "tsv"])
            #expect(track.status == 0, "\(track.stderr)")
            #expect(track.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.contains("\tStorage\t") })
            let unknown = try await daemon.almanac(["grid", "--conference", "ssd26", "--room", "Saal 1"])
            #expect(unknown.status == 4)
            #expect(unknown.stdout.isEmpty)
            #expect(
                unknown.stderr
                    == "almanac: unknown_room: no room matches \"Saal 1\"; known: Hall A, Hall B, Workshop Room 2, Workshop Room 10\n"
            )
            let language = try await daemon.almanac(["now", "--conference", "ssd26", "--language", "tlh"])
            #expect(language.status == 4)
            #expect(language.stderr.contains("known: en"))
        }
    }

    @Test func emptyAnswersSaySoAndAtSaysItsZone() async throws {
        try await withSamples { daemon in
            let now = try await daemon.almanac(["now", "--conference", "ssd26", "--at", "2026-11-23T08:00"])
            #expect(now.status == 0, "\(now.stderr)")
            #expect(
                now.stdout
                    == "Nothing is running at Mon 23 Nov 08:00 CET. Next: Predicates you can read, "
                    + "Mon 23 Nov 09:00–10:00 CET in Hall B.\n")
            #expect(now.stderr.contains("--at 2026-11-23T08:00 read in Europe/Berlin (the zone of ssd26)"))
            let search = try await daemon.almanac(["search", "zzzyzzx"])
            #expect(search.status == 0)
            #expect(search.stdout == "No session matches \"zzzyzzx\".\n")
            let json = try await daemon.almanac(["search", "zzzyzzx", "--format", "json"])
            #expect(json.stdout == "[]\n")
        }
    }
}
