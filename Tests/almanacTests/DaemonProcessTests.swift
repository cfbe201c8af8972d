import Foundation
import Glibc
import Testing

/// The real daemon binary with the real client: readiness to a fake NOTIFY_SOCKET, queries, writes, a file dropped
/// into the folder, SIGTERM and a restart.
@Suite(.timeLimit(.minutes(3)))
struct DaemonProcessTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/schedules")

    static func binary(_ name: String) throws -> String {
        let folders = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
        ]
        for folder in folders
        where FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent(name).path) {
            return folder.appendingPathComponent(name).path
        }
        throw FakeDaemon.BinaryNotFound(searched: folders.map(\.path))
    }

    /// A datagram socket standing in for systemd's NOTIFY_SOCKET.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init() {
            path = "/tmp/an-\(UUID().uuidString.prefix(8).lowercased()).sock"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        /// Waits (up to a minute) for a datagram containing `text`; returns every datagram read.
        func wait(for text: String) -> [String] {
            var seen: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return seen }
                let message = String(decoding: buffer.prefix(count), as: UTF8.self)
                seen.append(message)
                if message.contains(text) { return seen }
            }
        }

        deinit {
            close(fd)
            unlink(path)
        }
    }

    struct Sandbox {
        let root: URL
        let inbox: URL
        let socket: String

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("ad-\(UUID().uuidString)")
            inbox = root.appendingPathComponent("inbox")
            socket = "/tmp/ad-\(UUID().uuidString.prefix(8).lowercased()).sock"
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            for file in ["swift-server-days-2026.xml", "plumbing-camp-2026.json"] {
                try FileManager.default.copyItem(
                    at: DaemonProcessTests.samples.appendingPathComponent(file),
                    to: inbox.appendingPathComponent(file))
            }
        }

        var daemonArguments: [String] {
            ["--watch", inbox.path, "--state", root.appendingPathComponent("state").path, "--socket", socket]
        }

        func client(_ arguments: [String]) async throws -> ProcessRunner.Result {
            try await ProcessRunner.run(
                try DaemonProcessTests.binary("almanac"), arguments: arguments,
                environment: [
                    "ALMANAC_SOCKET": socket, "HOME": root.path, "LANG": "C.UTF-8",
                    "PATH": "/usr/bin:/bin",
                ])
        }

        func remove() {
            try? FileManager.default.removeItem(at: root)
            unlink(socket)
        }
    }

    /// Starts a program with stderr discarded (the daemon's log is not read here); the caller kills it if a test
    /// ends early.
    static func launch(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func theDaemonServesTheClientAndStopsOnSIGTERM() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let notify = NotifySocket()
        let daemon = try Self.launch(
            try Self.binary("almanacd"), sandbox.daemonArguments,
            environment: [
                "NOTIFY_SOCKET": notify.path, "HOME": sandbox.root.path, "PATH": "/usr/bin:/bin",
            ])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        let messages = notify.wait(for: "READY=1")
        let ready = try #require(messages.last)
        #expect(ready.contains("READY=1"))
        #expect(ready.contains("STATUS=serving 3 stores, 32 sessions"))

        let ping = try await sandbox.client(["ping"])
        #expect(ping.status == 0)
        let query = try await sandbox.client([
            "query", "Session", "--sort", "start", "--limit", "2", "--format", "json",
        ])
        #expect(query.status == 0)
        #expect(query.stdout.contains("\"entity\":\"Session\"") || query.stdout.contains("\"entity\": \"Session\""))
        let grouped = try await sandbox.client([
            "query", "Session", "--group-by", "room.name", "--count", "--sum", "duration", "--sort=-count",
            "--limit", "3",
        ])
        #expect(grouped.status == 0, "\(grouped.stderr)")
        let groupLines = grouped.stdout.split(separator: "\n").map(String.init)
        #expect(groupLines.count == 4, "\(grouped.stdout)")
        #expect(groupLines.first.map { $0.hasPrefix("room.name") && $0.hasSuffix("count  sum(duration)") } == true)
        let counts = groupLines.dropFirst().compactMap { $0.split(separator: " ").dropLast().last.flatMap { Int($0) } }
        #expect(counts.count == 3 && counts == counts.sorted(by: >))
        let textSum = try await sandbox.client(["query", "Session", "--avg", "title"])
        #expect(textSum.status == 1)
        #expect(!textSum.stderr.isEmpty)
        let bad = try await sandbox.client(["query", "Session", "--where", "title ==="])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("parse_error"))

        let guidLines = try await sandbox.client([
            "query", "Session", "--limit", "1", "--fields", "guid", "--format", "tsv",
        ])
        let guid = try #require(guidLines.stdout.split(separator: "\n").last.map(String.init))
        let favorite = try await sandbox.client(["fav", "add", guid])
        #expect(favorite.status == 0, "\(favorite.stderr)")
        let favorites = try await sandbox.client(["query", "Favorite", "--format", "json"])
        #expect(favorites.stdout.contains(guid))

        // A file renamed into the folder is attached without a restart.
        let staged = sandbox.root.appendingPathComponent("drop.ics")
        try FileManager.default.copyItem(
            at: Self.samples.appendingPathComponent("open-data-evening-2026.ics"), to: staged)
        try FileManager.default.moveItem(at: staged, to: sandbox.inbox.appendingPathComponent("drop.ics"))
        var attached = false
        for _ in 0..<50 where !attached {
            let stores = try await sandbox.client(["stores", "--format", "json"])
            attached = stores.stdout.contains("drop.ics")
            if !attached { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(attached)

        kill(daemon.processIdentifier, SIGTERM)
        #expect(await daemon.exited(within: 60), "the process did not stop within 60 s of SIGTERM")
        if !daemon.isRunning { #expect(daemon.terminationReason == .exit) }
        #expect(daemon.terminationStatus == 0)
        #expect(notify.wait(for: "STOPPING=1").last?.contains("STOPPING=1") == true)
        #expect(!FileManager.default.fileExists(atPath: sandbox.socket))

        // The favourite survived the restart-free run: it is in the personal store file.
        let restarted = try Self.launch(
            try Self.binary("almanacd"), sandbox.daemonArguments,
            environment: [
                "NOTIFY_SOCKET": notify.path, "HOME": sandbox.root.path, "PATH": "/usr/bin:/bin",
            ])
        defer { if restarted.isRunning { kill(restarted.processIdentifier, SIGKILL) } }
        _ = notify.wait(for: "READY=1")
        let again = try await sandbox.client(["query", "Favorite", "--format", "json"])
        #expect(again.stdout.contains(guid))
        let runs = try await sandbox.client(["query", "Run", "--format", "json"])
        #expect(runs.stdout.components(separatedBy: "\"entity\"").count - 1 == 2)
        kill(restarted.processIdentifier, SIGTERM)
        #expect(await restarted.exited(within: 60), "the process did not stop within 60 s of SIGTERM")
        if !restarted.isRunning { #expect(restarted.terminationStatus == 0) }
    }

    /// Files renamed into the folder while the daemon starts (before, during and right after its scan of 200
    /// files) are all attached: the folder is watched before it is scanned, so none falls between the two.
    @Test func filesDroppedDuringStartUpAreAttached() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let sample = Self.samples.appendingPathComponent("open-data-evening-2026.ics")
        for index in 0..<200 {
            try FileManager.default.copyItem(
                at: sample,
                to: sandbox.inbox.appendingPathComponent("filler-\(index).ics"))
        }
        let notify = NotifySocket()
        let daemon = try Self.launch(
            try Self.binary("almanacd"), sandbox.daemonArguments,
            environment: [
                "NOTIFY_SOCKET": notify.path, "HOME": sandbox.root.path, "PATH": "/usr/bin:/bin",
            ])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        func drop(_ name: String) throws {
            let staged = sandbox.root.appendingPathComponent(name)
            try FileManager.default.copyItem(at: sample, to: staged)
            try FileManager.default.moveItem(at: staged, to: sandbox.inbox.appendingPathComponent(name))
        }
        var dropped: [String] = []
        for (index, delay) in [20, 100, 250, 500, 1000].enumerated() {
            try await Task.sleep(for: .milliseconds(delay))
            dropped.append("early-\(index).ics")
            try drop(dropped.last!)
        }
        _ = notify.wait(for: "READY=1")
        dropped.append("at-ready.ics")
        try drop(dropped.last!)

        var missing = dropped
        for _ in 0..<100 where !missing.isEmpty {
            let stores = try await sandbox.client(["stores", "--format", "json"])
            missing.removeAll { stores.stdout.contains($0) }
            if !missing.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(missing.isEmpty, "never attached: \(missing)")
        kill(daemon.processIdentifier, SIGTERM)
        #expect(await daemon.exited(within: 60), "the process did not stop within 60 s of SIGTERM")
        if !daemon.isRunning { #expect(daemon.terminationStatus == 0) }
    }

    /// Sends one request line over a Unix socket and returns the reply line (without its newline), or `nil` after
    /// 30 s without one. (A plain socket: the inherited-socket test needs no client process.)
    static func request(_ line: String, at path: String) -> String? {
        UnixSocketConnection.exchange(line, at: path, receiveTimeout: 30)
    }

    /// Socket activation as systemd does it, through `systemd-socket-activate`: the daemon is started by the first
    /// connection, serves the socket it inherits (LISTEN_FDS), and leaves that socket file alone when it stops.
    @Test func theDaemonServesASocketItIsHandedBySystemd() async throws {
        let activator = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activator) else {
            print("skipped: \(activator) is not installed (Debian package systemd)")
            return
        }
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let notify = NotifySocket()
        // The daemon is told another path: it answers on sandbox.socket only by serving the socket it inherits.
        let elsewhere = sandbox.root.appendingPathComponent("unused.sock").path
        let arguments = sandbox.daemonArguments.map { $0 == sandbox.socket ? elsewhere : $0 }
        let launcher = try Self.launch(
            activator,
            [
                "--listen=\(sandbox.socket)", "--setenv=NOTIFY_SOCKET=\(notify.path)",
                "--setenv=HOME=\(sandbox.root.path)",
                try Self.binary("almanacd"),
            ] + arguments, environment: ["PATH": "/usr/bin:/bin"])
        defer { if launcher.isRunning { kill(launcher.processIdentifier, SIGKILL) } }
        var listening = false
        for _ in 0..<100 where !listening {
            listening = FileManager.default.fileExists(atPath: sandbox.socket)
            if !listening { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(listening, "systemd-socket-activate never created \(sandbox.socket)")

        // The first connection starts the daemon, which answers it on the inherited socket.
        let count = Self.request(#"{"id":1,"op":"count","entity":"Session"}"#, at: sandbox.socket)
        #expect(count == #"{"id":1,"ok":true,"count":32}"#)
        #expect(notify.wait(for: "READY=1").last?.contains("READY=1") == true)
        #expect(Self.request(#"{"id":2,"op":"ping"}"#, at: sandbox.socket) == #"{"id":2,"ok":true}"#)

        // The launcher exec'd the daemon: the same process takes SIGTERM and exits 0.
        kill(launcher.processIdentifier, SIGTERM)
        #expect(await launcher.exited(within: 60), "the process did not stop within 60 s of SIGTERM")
        if !launcher.isRunning { #expect(launcher.terminationReason == .exit) }
        #expect(launcher.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }

    /// A file the daemon's user may not read is refused with a clear error in `stores`, and the daemon serves the
    /// rest. Needs a user other than root (root reads every file): the test runs the daemon as `nobody` through
    /// `setpriv`, so it runs only when the tests run as root.
    @Test func anUnreadableFileIsRefusedAndTheRestIsServed() async throws {
        let setpriv = "/usr/bin/setpriv"
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv) else {
            print("skipped: needs root and \(setpriv) to run the daemon as another user")
            return
        }
        let root = URL(fileURLWithPath: "/tmp/au-\(UUID().uuidString.prefix(8).lowercased())")
        defer { try? FileManager.default.removeItem(at: root) }
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let readable = inbox.appendingPathComponent("swift-server-days-2026.xml")
        let secret = inbox.appendingPathComponent("secret.xml")
        try FileManager.default.copyItem(
            at: Self.samples.appendingPathComponent("swift-server-days-2026.xml"), to: readable)
        try FileManager.default.copyItem(
            at: Self.samples.appendingPathComponent("swift-server-days-2026.xml"), to: secret)
        // Everything belongs to nobody but the secret, which stays root's with no permissions for anyone else.
        for path in [root.path, inbox.path, readable.path] { chown(path, 65534, 65534) }
        chmod(secret.path, 0o600)
        let notify = NotifySocket()
        chmod(notify.path, 0o777)
        let socket = root.appendingPathComponent("s.sock").path
        let daemon = try Self.launch(
            setpriv,
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", try Self.binary("almanacd"),
                "--watch", inbox.path, "--state", root.appendingPathComponent("state").path, "--socket", socket,
            ], environment: ["NOTIFY_SOCKET": notify.path, "HOME": root.path, "PATH": "/usr/bin:/bin"])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        let ready = notify.wait(for: "READY=1")
        try #require(ready.last?.contains("READY=1") == true, "the daemon did not start as nobody: \(ready)")

        let stores = try #require(Self.request(#"{"id":1,"op":"stores"}"#, at: socket))
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(stores.utf8)) as? [String: Any])
        let entries = try #require(listed["stores"] as? [[String: Any]])
        let refused = try #require(entries.first { ($0["file"] as? String) == secret.path })
        let error = refused["error"] as? String ?? ""
        #expect(error.localizedCaseInsensitiveContains("permission"), "error: \(error)")
        #expect(entries.contains { ($0["file"] as? String) == readable.path && $0["error"] is NSNull })
        #expect(
            Self.request(#"{"id":2,"op":"count","entity":"Session"}"#, at: socket) == #"{"id":2,"ok":true,"count":18}"#)
        kill(daemon.processIdentifier, SIGTERM)
        #expect(await daemon.exited(within: 60), "the process did not stop within 60 s of SIGTERM")
        if !daemon.isRunning { #expect(daemon.terminationStatus == 0) }
    }
}
