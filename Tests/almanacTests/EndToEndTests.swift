import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// Runs the built `almanac` binary against a live server with canned data.
@Suite(.timeLimit(.minutes(2)))
struct EndToEndTests {
    func almanac(
        _ arguments: [String],
        socket: String?,
        extraEnvironment: [String: String] = [:]
    ) async throws -> ProcessRunner.Result {
        try await FakeDaemon.almanac(arguments, socket: socket, extraEnvironment: extraEnvironment)
    }

    func withFakeDaemon(_ body: (String) async throws -> Void) async throws {
        try await FakeDaemon.serve(FakeScheduleHandler(), body)
    }

    @Test func pingAnswers() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["ping", "--socket", socket], socket: nil)
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("pong from \(socket) in "))
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func queryPrintsATable() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(
                ["query", "Session", "--fields", "title,room.name", "--limit", "2"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "title                                                               room.name")
            #expect(
                lines.dropFirst().first == "Opening Ceremony                                                    Saal 1")
            #expect(lines.count == 3)
        }
    }

    @Test func queryAsJSONIsTheDaemonsObjects() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["query", "Session", "--format", "json"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            let value = try JSONValue(parsing: Array(result.stdout.utf8))
            #expect(value == .array(SampleSessions.objects.map { .object($0.json) }))
        }
    }

    @Test func sessionCommandsShowConferenceTimes() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["now", "--at", "2024-12-28T10:40:00+01:00"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            // Running at 10:40: the favourite in Saal 2, not the opening that ended at 10:30.
            #expect(result.stdout.contains("★  Sat 28 Dec 10:00–11:00 CET  Saal 2"))
            #expect(!result.stdout.contains("Opening Ceremony"))
            let csv = try await almanac(["day", "2024-12-28", "--format", "csv", "--utc"], socket: socket)
            #expect(csv.status == 0, "\(csv.stderr)")
            #expect(
                csv.stdout.hasPrefix("start,end,room,title,track,favorite,status,guid,uri\r\n2024-12-28T09:00:00Z,"))
        }
    }

    @Test func gridFallsBackToAListWhenNotATerminal() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["grid", "--day", "2024-12-28"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("   WHEN"))
            #expect(!result.stdout.contains("┌"))
        }
    }

    @Test func gridWithWidthDrawsTheTimetable() async throws {
        let golden = try #require(
            Bundle.module.url(forResource: "grid-100", withExtension: "txt", subdirectory: "Fixtures"))
        try await withFakeDaemon { socket in
            let result = try await almanac(
                [
                    "grid", "--day", "2024-12-28", "--conference", "38c3", "--at", "2024-12-28T10:40:00+01:00",
                    "--width", "100",
                ],
                socket: socket
            )
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == (try String(contentsOf: golden, encoding: .utf8)))
        }
    }

    @Test func pipedOutputIsNeverCutEvenWithCOLUMNS() async throws {
        try await withFakeDaemon { socket in
            let piped = try await almanac(
                ["day", "2024-12-28", "--conference", "38c3"], socket: socket, extraEnvironment: ["COLUMNS": "40"])
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout.contains("Memory safety in practice: a long title that will not fit in a box"))
            #expect(!piped.stdout.contains("…"))
            let cut = try await almanac(["day", "2024-12-28", "--conference", "38c3", "--width", "60"], socket: socket)
            #expect(cut.status == 0, "\(cut.stderr)")
            #expect(cut.stdout.split(separator: "\n").allSatisfy { TextWidth.of(String($0)) <= 60 }, "\(cut.stdout)")
            #expect(cut.stdout.contains("…"))
        }
    }

    @Test func exportWritesICS() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["export", "ics", "--favorites"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("BEGIN:VCALENDAR\r\n"))
        }
    }

    @Test func daemonErrorsExit1WithTheCodeOnStderr() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["query", "Nope"], socket: socket)
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "almanac: unknown_entity: the model has no entity Nope\n")
        }
    }

    @Test func notFoundExits4() async throws {
        try await withFakeDaemon { socket in
            let result = try await almanac(["delete", "x-almanac://favorites/Favorite/p99"], socket: socket)
            #expect(result.status == 4)
            #expect(result.stderr.hasPrefix("almanac: not_found: "))
        }
    }

    @Test func unreachableDaemonExits3() async throws {
        let result = try await almanac(["ping"], socket: "/tmp/aw-none-\(UUID().uuidString.prefix(6)).sock")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("almanac: cannot_connect: cannot connect to /tmp/aw-none-"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [["query"], ["next", "--within", "soon"], ["frobnicate"], ["query", "Session", "--var", "oops"]])
    func usageErrorsExit2(arguments: [String]) async throws {
        let result = try await almanac(arguments, socket: "/tmp/aw-unused.sock")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func helpExits0AndDocumentsExitCodes() async throws {
        let result = try await almanac(["--help"], socket: nil)
        #expect(result.status == 0)
        #expect(result.stdout.contains("EXIT CODES"))
        let sub = try await almanac(["grid", "--help"], socket: nil)
        #expect(sub.status == 0)
        #expect(sub.stdout.contains("EXAMPLES"))
    }
}
