import AlmanacWire
import ArgumentParser
import Foundation
import Glibc
import Testing

@testable import almanac

/// Every example in every `--help` text runs against the real daemon on the sample schedules (Data/schedules):
/// exit 0 and some output. Examples run in the order the help shows them, in one daemon, as a person trying them
/// one after the other would.
@Suite(.timeLimit(.minutes(5)))
struct HelpExampleTests {
    /// The moment examples that depend on the clock run at (the first day of the ssd26 sample, 10:00 CET).
    static let at = "2026-11-23T10:00+01:00"
    /// A session guid of the samples, used in the examples.
    static let sampleGUID = "78c50982-46d5-52ab-8fc6-cfd50eaa2fc0"

    /// `(command path, example line)` for every command, the root first, subcommands in help order.
    static func examples() -> [(command: String, line: String)] {
        var found: [(String, String)] = []
        func visit(_ command: ParsableCommand.Type, path: String) {
            let configuration = command.configuration
            let name = configuration.commandName ?? String(describing: command).lowercased()
            let full = path.isEmpty ? name : path + " " + name
            var inExamples = false
            for line in configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text == "EXAMPLES:" {
                    inExamples = true
                } else if inExamples, !text.isEmpty {
                    found.append((full, text))
                } else if inExamples, text.isEmpty {
                    inExamples = false
                }
            }
            for sub in configuration.subcommands { visit(sub, path: full) }
        }
        visit(Almanac.self, path: "")
        return found
    }

    /// Shell words: quotes group, a leading `NAME=value` is environment, `> file` redirects standard output,
    /// and a pipe ends the command.
    struct ShellLine {
        var environment: [String: String] = [:]
        var arguments: [String] = []
        var redirect: String?

        init(_ line: String) {
            var words: [String] = []
            var current = ""
            var quote: Character?
            var inWord = false
            for character in line {
                if let open = quote {
                    if character == open { quote = nil } else { current.append(character) }
                } else if character == "'" || character == "\"" {
                    quote = character
                    inWord = true
                } else if character == " " {
                    if inWord { words.append(current) }
                    current = ""
                    inWord = false
                } else {
                    current.append(character)
                    inWord = true
                }
            }
            if inWord { words.append(current) }
            if let pipe = words.firstIndex(of: "|") { words = Array(words[..<pipe]) }
            if let arrow = words.firstIndex(of: ">"), arrow + 1 < words.count {
                redirect = words[arrow + 1]
                words.removeSubrange(arrow...(arrow + 1))
            }
            while let first = words.first, first != "almanac", let equals = first.firstIndex(of: "=") {
                environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
                words.removeFirst()
            }
            arguments = Array(words.dropFirst())
        }
    }

    @Test func examplesAreFoundInEveryCommand() {
        let commands = Set(Self.examples().map(\.command))
        for command in ["almanac", "almanac grid", "almanac show", "almanac now", "almanac fav add", "almanac update"] {
            #expect(commands.contains(command), "\(command) has no examples")
        }
        let line = ShellLine("COLUMNS=200 almanac grid --room \"Hall A\" > out.txt")
        #expect(line.environment == ["COLUMNS": "200"])
        #expect(line.arguments == ["grid", "--room", "Hall A"])
        #expect(line.redirect == "out.txt")
    }

    @Test func everyHelpExampleWorksOnTheSampleData() async throws {
        let daemon = try LiveDaemon(files: LiveDaemon.sampleFiles)
        do {
            try await runExamples(daemon)
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }

    func runExamples(_ daemon: LiveDaemon) async throws {
        try await publishNewRelease(daemon)
        let sessionURI = try await uri(of: "Session", where: "guid == $G", variables: ["G=\(Self.sampleGUID)"], daemon)
        var ran = 0
        for (command, line) in Self.examples() {
            // `watch` streams events until it is interrupted: it has no end to wait for.
            if command == "almanac watch" { continue }
            var shell = ShellLine(line)
            var favoriteURI: String?
            if line.contains("/Favorite/") {
                favoriteURI = try await uri(of: "Favorite", where: nil, variables: [], daemon)
            }
            shell.arguments = shell.arguments.map { word in
                if word.hasPrefix("x-coredata://"), word.hasSuffix("/Session/p12") { return sessionURI }
                if word.hasPrefix("x-coredata://"), word.contains("/Favorite/") { return favoriteURI ?? word }
                return word == "/tmp/almanac.sock" ? daemon.socket : word
            }
            let timed = ["now", "next", "day", "grid", "conflicts"]
            if let verb = shell.arguments.first, timed.contains(verb), !shell.arguments.contains("--at") {
                shell.arguments += ["--at", Self.at]
            }
            let result = try await daemon.almanac(shell.arguments, environment: shell.environment)
            var output = result.stdout
            if let redirect = shell.redirect {
                try output.write(to: daemon.root.appendingPathComponent(redirect), atomically: true, encoding: .utf8)
            }
            if let index = shell.arguments.firstIndex(of: "--output"), index + 1 < shell.arguments.count {
                let file = daemon.root.appendingPathComponent(shell.arguments[index + 1])
                output += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
            #expect(result.status == 0, "\(command): \(line) exited \(result.status): \(result.stderr)")
            #expect(!output.isEmpty, "\(command): \(line) printed nothing")
            ran += 1
        }
        #expect(ran >= 40, "only \(ran) examples ran")
    }

    /// Replaces the ssd26 sample with a next release (version 1.2, one title changed), as its publisher would,
    /// so that `changes` has something to show; returns once the daemon knows the change.
    func publishNewRelease(_ daemon: LiveDaemon) async throws {
        let file = daemon.inbox.appendingPathComponent("swift-server-days-2026.xml")
        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "<version>1.1</version>", with: "<version>1.2</version>")
            .replacingOccurrences(of: "Crash-safe file writes", with: "Crash-safe file writes, revisited")
        let staged = daemon.root.appendingPathComponent("next.xml")
        try text.write(to: staged, atomically: true, encoding: .utf8)
        #expect(rename(staged.path, file.path) == 0, "rename: errno \(errno)")
        for _ in 0..<100 {
            if try await daemon.almanac(["changes", "ssd26"]).status == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the daemon did not pick up the new release of ssd26")
    }

    /// The URI of the first object of `entity` matching `predicate`.
    func uri(of entity: String, where predicate: String?, variables: [String], _ daemon: LiveDaemon) async throws
        -> String
    {
        var arguments = ["query", entity, "--limit", "1", "--format", "json"]
        if let predicate { arguments += ["--where", predicate] }
        for variable in variables { arguments += ["--var", variable] }
        let result = try await daemon.almanac(arguments)
        let objects = try JSONValue(parsing: result.stdout).arrayValue ?? []
        return try #require(objects.first?["uri"]?.stringValue, "no \(entity): \(result.stderr)")
    }
}
