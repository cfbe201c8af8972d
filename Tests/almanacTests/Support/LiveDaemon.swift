import Foundation
import Glibc

/// The real `almanacd` over a temporary folder holding the given schedule files, for tests that drive the real
/// client as a person would. Ready once systemd's READY=1 arrives (the files are read by then).
final class LiveDaemon {
    let root: URL
    let inbox: URL
    let socket: String
    private let daemon: ChildDaemon

    /// The sample schedules of the repository (Data/schedules).
    static var sampleFiles: [URL] {
        (try? FileManager.default.contentsOfDirectory(
            at: DaemonProcessTests.samples, includingPropertiesForKeys: nil))?.sorted { $0.path < $1.path } ?? []
    }

    /// The real schedules beside the checkout (`../shared/schedules`), nil when absent.
    static let sharedSchedules: URL? = {
        let folder = DaemonProcessTests.samples.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/schedules")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }()

    init(files: [URL]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("al-\(UUID().uuidString)")
        inbox = root.appendingPathComponent("inbox")
        socket = "/tmp/al-\(UUID().uuidString.prefix(8).lowercased()).sock"
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(at: file, to: inbox.appendingPathComponent(file.lastPathComponent))
        }
        daemon = try ChildDaemon(inbox: inbox, state: root.appendingPathComponent("state"), socket: socket)
    }

    /// The environment the client runs in: this daemon's socket, UTC as the machine's zone, no colour settings.
    var environment: [String: String] {
        ["ALMANAC_SOCKET": socket, "HOME": root.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin", "TZ": "UTC"]
    }

    /// Runs the client in the daemon's folder.
    func almanac(_ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> ProcessRunner.Result
    {
        try await ProcessRunner.run(
            try DaemonProcessTests.binary("almanac"), arguments: arguments,
            environment: environment.merging(extra) { $1 }, directory: root)
    }

    /// Stops the daemon (SIGTERM, then SIGKILL when it has not exited in time) and removes its folder.
    func stop() async {
        if daemon.process.isRunning { _ = await daemon.stop() }
        try? FileManager.default.removeItem(at: root)
        unlink(socket)
    }
}
