import Foundation
import Glibc
import Testing

@testable import almanac

/// What a person reads at 80, 120 and 200 columns on real schedules (31C3 and FOSDEM 2021 from ../shared), as
/// golden files, and one run in a real terminal (tmux) for colour and width.
///
/// The golden files live in Fixtures/golden; run with `ALMANAC_UPDATE_GOLDEN=1` to rewrite them after a change
/// that is meant, then read the diff.
@Suite(
    .serialized,
    .timeLimit(.minutes(5)),
    .enabled(if: LiveDaemon.sharedSchedules != nil, "../shared/schedules is absent: no real schedules to read")
)
struct RealScheduleTerminalTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/golden")
    static let updating = ProcessInfo.processInfo.environment["ALMANAC_UPDATE_GOLDEN"] != nil

    static var realFiles: [URL] {
        guard let folder = LiveDaemon.sharedSchedules else { return [] }
        return ["31c3-schedule-v1.5.xml", "fosdem-2021-schedule.xml"].map { folder.appendingPathComponent($0) }
    }

    /// Name and arguments of each capture; `--at` pins now (14:10 UTC on FOSDEM's Saturday).
    static let captures: [(String, [String])] = [
        ("grid-fosdem", ["grid", "--day", "2021-02-06", "--conference", "fosdem-2021", "--at", "2021-02-06T14:10Z"]),
        (
            "grid-fosdem-rooms",
            [
                "grid", "--day", "2021-02-06", "--conference", "fosdem-2021", "--room", "D.go", "--room", "D.emulator",
                "--room", "K.fosdem", "--at", "2021-02-06T14:10Z",
            ]
        ),
        ("grid-31c3", ["grid", "--day", "2014-12-28", "--conference", "31c3", "--at", "2014-12-28T17:05+01:00"]),
        ("now-fosdem", ["now", "--at", "2021-02-06T14:10Z"]),
        ("search-heartbleed", ["search", "heartbleed"]),
        ("search-rust", ["search", "rust", "--conference", "fosdem-2021"]),
        ("show-heartbleed", ["show", "6bXRd7c5UJbIlb4QiTd1ng"]),
        ("stores", ["stores"]),
    ]

    /// Load times change from run to run: `19:09` in the LOADED column reads `hh:mm`.
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"(?m)(?<=  )\d\d:\d\d$"#, with: "hh:mm", options: .regularExpression)
    }

    @Test func goldenCapturesAt80And120And200Columns() async throws {
        let daemon = try LiveDaemon(files: Self.realFiles)
        var mismatches: [String] = []
        do {
            for (name, arguments) in Self.captures {
                for width in [80, 120, 200] {
                    let result = try await daemon.almanac(arguments + ["--width", String(width)])
                    #expect(result.status == 0, "\(name) at \(width): \(result.stderr)")
                    let text = Self.masked(result.stdout)
                    for line in text.split(separator: "\n") where TextWidth.of(String(line)) > width {
                        Issue.record("\(name) at \(width): a line of \(TextWidth.of(String(line))) columns: \(line)")
                    }
                    let file = Self.golden.appendingPathComponent("\(name)-\(width).txt")
                    if Self.updating {
                        try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
                        try text.write(to: file, atomically: true, encoding: .utf8)
                    } else if (try? String(contentsOf: file, encoding: .utf8)) != text {
                        mismatches.append("\(name)-\(width)")
                        try? text.write(toFile: "/tmp/\(name)-\(width).actual.txt", atomically: true, encoding: .utf8)
                    }
                }
            }
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
        #expect(mismatches.isEmpty, "differ from Fixtures/golden (actual output in /tmp/NAME-WIDTH.actual.txt)")
    }

    /// Runs a program and returns its exit status (-1 when it cannot start or runs over a minute), polling without
    /// blocking a thread. Not `Process`: the tmux server that `new-session` starts keeps a descriptor of
    /// Foundation's open, so `Process` would see the client end only when the server does.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String]) async -> Int32 {
        (try? await ProcessRunner.spawn(path, arguments: arguments, environment: environment, within: 60))?.status ?? -1
    }

    /// Where tmux is, if installed.
    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(.enabled(if: tmux != nil, "tmux is not installed (apt-get install tmux)"))
    func aRealTerminalGetsColourAndItsWidthAndNO_COLORTurnsColourOff() async throws {
        let tmux = try #require(Self.tmux)
        let daemon = try LiveDaemon(files: Self.realFiles)
        let server = "almanac-\(UUID().uuidString.prefix(8))"
        let client = try DaemonProcessTests.binary("almanac")
        var environment = daemon.environment
        environment["TERM"] = "xterm-256color"
        func run(_ arguments: [String]) async throws -> ProcessRunner.Result {
            try await ProcessRunner.run(
                tmux, arguments: ["-L", server, "-f", "/dev/null"] + arguments, environment: environment)
        }
        /// Runs `command` in a fresh 120×60 window and returns the screen (with escapes) once it has finished.
        func screen(_ name: String, _ command: String) async throws -> String {
            let done = daemon.root.appendingPathComponent("\(name).done").path
            let status = await Self.spawn(
                tmux,
                [
                    "-L", server, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "120", "-y", "60",
                    "sh -c '\(command); touch \(done); sleep 120'",
                ],
                environment: environment)
            #expect(status == 0, "tmux new-session exited \(status)")
            for _ in 0..<300 where !FileManager.default.fileExists(atPath: done) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(FileManager.default.fileExists(atPath: done), "\(name) did not finish")
            return try await run(["capture-pane", "-p", "-e", "-t", name]).stdout
        }
        do {
            let grid =
                "\(client) grid --day 2021-02-06 --conference fosdem-2021 --room D.emulator --room D.go --at 2021-02-06T14:10Z"
            let coloured = try await screen("colour", grid)
            let plain = try await screen("plain", "NO_COLOR=1 " + grid)
            // A terminal: the grid is drawn (not listed) at the pane's width, with colour unless NO_COLOR is set.
            #expect(coloured.contains("┌"), "\(coloured)")
            #expect(coloured.contains("\u{1B}["), "no colour in a terminal")
            #expect(!plain.contains("\u{1B}["), "colour despite NO_COLOR")
            #expect(plain.contains("D.emulator") && plain.contains("D.go"))
            for line in plain.split(separator: "\n") {
                #expect(TextWidth.of(String(line)) <= 120, "\(line)")
            }
        } catch {
            _ = try? await run(["kill-server"])
            await daemon.stop()
            throw error
        }
        _ = try? await run(["kill-server"])
        await daemon.stop()
    }
}
