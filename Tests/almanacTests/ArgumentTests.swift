import AlmanacWire
import Testing

@testable import almanac

@Suite struct ArgumentTests {
    @Test func queryParsesVariablesSortAndFields() throws {
        let command = try QueryCommand.parse([
            "Session", "--where", "start > $NOW AND duration >= $MIN", "--var", "NOW=2024-12-28T10:00:00+01:00",
            "--var", "MIN:=45", "--var", "TAGS:=[\"a\",\"b\"]", "--sort", "start,-title/i,room.name/l", "--limit", "5",
            "--offset", "10", "--fields", "title, start,room.name", "--store", "38c3.xml",
        ])
        let fetch = try command.request()
        #expect(fetch.entity == "Session")
        #expect(fetch.predicate == "start > $NOW AND duration >= $MIN")
        #expect(fetch.variables == ["NOW": "2024-12-28T10:00:00+01:00", "MIN": 45, "TAGS": ["a", "b"]])
        #expect(
            fetch.sort == [
                .init(key: "start"), .init(key: "title", ascending: false, comparison: .caseInsensitive),
                .init(key: "room.name", comparison: .localizedStandard),
            ]
        )
        #expect(fetch.limit == 5)
        #expect(fetch.offset == 10)
        #expect(fetch.properties == ["title", "start", "room.name"])
        #expect(fetch.stores == ["38c3.xml"])
    }

    @Test(arguments: [["Session", "--var", "NOVALUE"], ["Session", "--var", "=x"], ["Session", "--var", "A:={"],
                      ["Session", "--sort", "start/x"], ["Session", "--limit", "-1"], []])
    func badArgumentsAreUsageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try QueryCommand.parse(arguments) }
    }

    @Test func assignmentsKeepStringsUnlessJSON() throws {
        #expect(try ArgumentSyntax.assignment("note=a=b") == ("note", "a=b"))
        #expect(try ArgumentSyntax.assignment("n:=3") == ("n", 3))
        #expect(try ArgumentSyntax.assignment("x:=null") == ("x", .null))
        #expect(try ArgumentSyntax.assignment("count=3") == ("count", "3"))
    }

    @Test func durationsAndDays() {
        #expect(HumanInput.duration("60m") == 3600)
        #expect(HumanInput.duration("1h30m") == 5400)
        #expect(HumanInput.duration("45") == 2700)
        #expect(HumanInput.duration("2x") == nil)
        #expect(DayArgument("2024-12-28") == .date("2024-12-28"))
        #expect(DayArgument("2024-1-5") == .date("2024-01-05"))
        #expect(DayArgument("Tomorrow") == .relative(1))
        #expect(DayArgument("yesterday") == .relative(-1))
        #expect(DayArgument("2024-02-30") == nil)
        #expect(DayArgument("28.12.2024") == nil)
        #expect(ConferenceDays.date("2024-12-31", plus: 1) == "2025-01-01")
        #expect(ConferenceDays.date("2024-03-01", plus: -1) == "2024-02-29")
    }

    @Test func globalOptionsAreValidated() {
        #expect(throws: (any Error).self) { try NowCommand.parse(["--utc", "--tz", "Europe/Berlin"]) }
        #expect(throws: (any Error).self) { try NowCommand.parse(["--tz", "Mars/Olympus"]) }
        #expect(throws: (any Error).self) { try NowCommand.parse(["--at", "soon"]) }
        #expect(throws: Never.self) { try NowCommand.parse(["--at", "2024-12-28T10:40+01:00", "--format", "csv"]) }
    }
}

@Suite struct SocketPathTests {
    func resolver(_ environment: [String: String], localExists: Bool = false) -> SocketPathResolver {
        SocketPathResolver(environment: environment, fileExists: { $0 == SocketPathResolver.localPath && localExists })
    }

    @Test func optionComesFirst() {
        let env = ["ALMANAC_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(resolver(env, localExists: true).resolve(option: "/opt.sock") == "/opt.sock")
    }

    @Test func thenTheEnvironmentVariable() {
        let env = ["ALMANAC_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(resolver(env, localExists: true).resolve(option: nil) == "/env.sock")
    }

    @Test func thenTheProjectLocalSocket() {
        #expect(resolver(["XDG_RUNTIME_DIR": "/run/user/1000"], localExists: true).resolve(option: nil) == "./.almanac/almanac.sock")
    }

    @Test func thenTheRuntimeFolder() {
        #expect(resolver(["XDG_RUNTIME_DIR": "/run/user/1000"]).resolve(option: nil) == "/run/user/1000/almanac/almanac.sock")
    }

    @Test func finallyTheSystemSocket() {
        #expect(resolver([:]).resolve(option: nil) == "/run/almanac/almanac.sock")
        #expect(resolver(["ALMANAC_SOCKET": "", "XDG_RUNTIME_DIR": ""]).resolve(option: "") == "/run/almanac/almanac.sock")
    }
}

@Suite struct TerminalTests {
    @Test func coloursOnlyOnATerminalWithoutNO_COLOR() {
        #expect(Terminal.wantsColors(isTerminal: true, environment: [:]))
        #expect(!Terminal.wantsColors(isTerminal: false, environment: [:]))
        #expect(!Terminal.wantsColors(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!Terminal.wantsColors(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!Terminal.wantsColors(isTerminal: true, environment: ["TERM": "dumb"]))
    }

    @Test func widthComesFromCOLUMNS() {
        #expect(Terminal.width(environment: ["COLUMNS": "132"], fd: -1) == 132)
        #expect(Terminal.width(environment: [:], fd: -1) == 80)
    }
}
