import Foundation
import Testing

private let systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The unit files in systemd/ pass `systemd-analyze verify` and rate 2.0 or lower in its offline security check.
@Suite("systemd units", .enabled(if: systemdAnalyze != nil, "systemd-analyze is not installed"))
struct SystemdUnitTests {
    static let analyzer = systemdAnalyze

    static let unitsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd")

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.analyzer!)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Copies the units to a temporary folder with ExecStart pointing at an existing binary (the installed path does
    /// not exist on a build machine, which verify would report).
    func stagedUnits() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["almanacd.service", "almanacd.socket"] {
            var text = try String(contentsOf: Self.unitsFolder.appendingPathComponent(name), encoding: .utf8)
            text = text.replacingOccurrences(of: "/usr/local/bin/almanacd", with: "/bin/true")
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func verifyReportsNothing() throws {
        let folder = try stagedUnits()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(["verify", folder.appendingPathComponent("almanacd.service").path,
                              folder.appendingPathComponent("almanacd.socket").path])
        let lines = result.output.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.isEmpty, "systemd-analyze verify said: \(result.output)")
        #expect(result.status == 0)
    }

    @Test func securityExposureIsAtMostTwo() throws {
        let folder = try stagedUnits()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try run(["security", "--offline=yes", folder.appendingPathComponent("almanacd.service").path])
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let value = try #require(score, "no score in: \(line)")
        #expect(value <= 2.0)
    }
}
