import AlmanacWire
import Foundation
import Glibc
import Testing

/// The real daemon re-reads its per-file settings on SIGHUP and reads the files they match again, without a restart.
@Suite(.timeLimit(.minutes(3)))
struct SettingsReloadTests {
    /// A legacy frab file that says nothing of its zone: no `time_zone_name`, no offsets.
    static let legacy = """
        <?xml version="1.0" encoding="UTF-8"?>
        <schedule>
          <conference><title>Legacy Days 2021</title><day_change>00:00:00</day_change></conference>
          <day index="1" date="2021-02-06">
            <room name="K.main">
              <event id="1"><start>10:00</start><duration>00:25</duration><room>K.main</room><title>Welcome</title></event>
            </room>
          </day>
        </schedule>
        """

    func stores(_ socket: String) throws -> [WireResponse.StoreInfo] {
        let line = try #require(DaemonProcessTests.request(#"{"id":1,"op":"stores"}"#, at: socket))
        guard case .object(let reply) = try JSONValue(parsing: line) else {
            throw WireError.badRequest("not an object")
        }
        return try WireResponse.Stores(json: reply).stores
    }

    @Test func sighupAppliesNewPerFileSettings() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID().uuidString)")
        let inbox = root.appendingPathComponent("inbox"), state = root.appendingPathComponent("state")
        let socket = "/tmp/rl-\(UUID().uuidString.prefix(8).lowercased()).sock"
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            unlink(socket)
        }
        try Data(Self.legacy.utf8).write(to: inbox.appendingPathComponent("legacy-2021.xml"))
        let notify = DaemonProcessTests.NotifySocket()
        let daemon = try DaemonProcessTests.launch(
            try DaemonProcessTests.binary("almanacd"),
            ["--watch", inbox.path, "--state", state.path, "--socket", socket],
            environment: ["NOTIFY_SOCKET": notify.path, "HOME": root.path, "PATH": "/usr/bin:/bin"])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        #expect(notify.wait(for: "READY=1").contains { $0.contains("READY=1") })

        // Nothing says where the file is: UTC is assumed, and `stores` says so with a warning.
        var entry = try #require(try stores(socket).first { $0.file.hasSuffix("legacy-2021.xml") })
        #expect(entry.timeZone == "UTC" && entry.timeZoneSource == "assumed")
        #expect(entry.warnings.count >= 1)
        #expect(entry.conference == "legacy-days-2021")

        // The user says where it is; SIGHUP reads the file again with it.
        let settings = #"{"files": {"legacy-*.xml": {"timeZone": "Europe/Brussels", "acronym": "legacy21"}}}"#
        try Data(settings.utf8).write(to: state.appendingPathComponent("almanacd.json"))
        kill(daemon.processIdentifier, SIGHUP)
        _ = notify.wait(for: "READY=1")
        entry = try #require(try stores(socket).first { $0.file.hasSuffix("legacy-2021.xml") })
        #expect(entry.timeZone == "Europe/Brussels" && entry.timeZoneSource == "configured")
        #expect(entry.conference == "legacy21" && entry.settingsError == nil)
        let line = try #require(
            DaemonProcessTests.request(
                #"{"id":2,"op":"fetch","entity":"Session","properties":["start"]}"#, at: socket))
        guard case .object(let reply) = try JSONValue(parsing: line) else {
            throw WireError.badRequest("not an object")
        }
        let start = try #require(try WireResponse.Fetch(json: reply).objects.first?.values["start"]?.dateValue)
        #expect(
            WireDate.string(from: start, in: TimeZone(identifier: "Europe/Brussels")) == "2021-02-06T10:00:00+01:00")

        // A zone that does not exist: reported beside the file, which keeps its reading.
        try Data(#"{"files": {"legacy-*.xml": {"timeZone": "Europe/Brusels"}}}"#.utf8)
            .write(to: state.appendingPathComponent("almanacd.json"))
        kill(daemon.processIdentifier, SIGHUP)
        _ = notify.wait(for: "READY=1")
        entry = try #require(try stores(socket).first { $0.file.hasSuffix("legacy-2021.xml") })
        #expect(entry.settingsError?.contains("Europe/Brusels") == true)
        #expect(entry.timeZone == "Europe/Brussels" && entry.conference == "legacy21")

        kill(daemon.processIdentifier, SIGTERM)
        #expect(await daemon.exited(within: 30), "almanacd did not stop within 30 s of SIGTERM")
        if !daemon.isRunning { #expect(daemon.terminationStatus == 0) }
    }
}
