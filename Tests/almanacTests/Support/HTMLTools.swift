import Foundation
import Testing

/// The outside programs the HTML timetable is checked with: libxml2's `xmllint` (its HTML parser and its XML
/// parser) and a headless Chromium, each optional (the tests that need one skip when it is absent).
enum HTMLTools {
    static let xmllint: String? = executable(["/usr/bin/xmllint", "/usr/local/bin/xmllint"])
    static let chromium: String? = executable([
        "/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
    ])
    static let python: String? = executable(["/usr/bin/python3"])

    private static func executable(_ paths: [String]) -> String? {
        paths.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a tool with output to temporary files, killing it after `seconds` (then the status is -1).
    static func run(_ tool: String, _ arguments: [String], in folder: URL, seconds: Double = 90) async throws -> Result
    {
        let out = folder.appendingPathComponent("tool-\(UUID().uuidString.prefix(8)).out")
        let err = folder.appendingPathComponent("tool-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ["HOME": folder.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        let exited = await process.exited(within: seconds)
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: exited ? process.terminationStatus : -1,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// What libxml2 finds wrong with `file`: the HTML parser's complaints (unclosed or misnested elements, unknown
    /// tags, bad entities) and, since the page is meant to be well-formed XML as well, the XML parser's. Empty when
    /// both read it without a word.
    static func parserComplaints(_ file: URL) async throws -> String {
        let xmllint = try #require(xmllint)
        let folder = file.deletingLastPathComponent()
        let html = try await run(xmllint, ["--html", "--noout", file.path], in: folder)
        let xml = try await run(xmllint, ["--noout", file.path], in: folder)
        return (html.stderr + html.stdout + xml.stderr + xml.stdout).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The values of every `href`, `src`, `action`, `data` and `srcset` attribute, as libxml2's HTML parser reads
    /// them.
    static func references(_ file: URL) async throws -> [String] {
        let xmllint = try #require(xmllint)
        let result = try await run(
            xmllint,
            ["--html", "--xpath", "//@href | //@src | //@action | //@data | //@srcset | //@poster", file.path],
            in: file.deletingLastPathComponent())
        // `href="#day-1"` per line; xmllint says "XPath set is empty" on stderr when there is none.
        return result.stdout.split(whereSeparator: \.isWhitespace).compactMap { item in
            guard let equals = item.firstIndex(of: "=") else { return nil }
            return String(item[item.index(after: equals)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    /// The text of the nodes an XPath expression selects, through libxml2's HTML parser.
    static func text(_ file: URL, xpath: String) async throws -> String {
        let xmllint = try #require(xmllint)
        return try await run(xmllint, ["--html", "--xpath", xpath, file.path], in: file.deletingLastPathComponent())
            .stdout
    }
}
