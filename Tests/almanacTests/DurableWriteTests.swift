import Foundation
import Glibc
import Testing

/// An acknowledged write is on disk before its reply leaves: the real daemon, traced with strace, syncs the personal
/// store's file (or its WAL) between receiving each insert and writing its reply to the socket.
/// strace, when it is installed and may trace a child here (it needs ptrace).
enum Strace {
    static let path = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static let works: Bool = {
        guard let path else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-qq", "-e", "trace=none", "/bin/true"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

@Suite(
    .enabled(if: Strace.works, "strace is not installed or cannot trace here (apt-get install strace)"),
    .timeLimit(.minutes(3)))
struct DurableWriteTests {
    @Test func everyAcknowledgedInsertIsSyncedBeforeItsReply() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
        let inbox = root.appendingPathComponent("inbox"), state = root.appendingPathComponent("state")
        let socket = "/tmp/dw-\(UUID().uuidString.prefix(8).lowercased()).sock"
        let trace = root.appendingPathComponent("trace.txt")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            unlink(socket)
        }
        let notify = DaemonProcessTests.NotifySocket()
        let tracer = try DaemonProcessTests.launch(
            try #require(Strace.path),
            [
                "-f", "-y", "-qq", "-s", "120", "-e", "trace=fsync,fdatasync,write,writev,sendmsg,sendto", "-o",
                trace.path,
                try DaemonProcessTests.binary("almanacd"), "--watch", inbox.path, "--state", state.path, "--socket",
                socket,
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "HOME": root.path, "PATH": "/usr/bin:/bin"])
        defer { if tracer.isRunning { kill(tracer.processIdentifier, SIGKILL) } }
        #expect(notify.wait(for: "READY=1").contains { $0.contains("READY=1") })

        var uris: [String] = []
        for index in 0..<5 {
            let reply = try #require(
                DaemonProcessTests.request(
                    #"{"id":\#(index),"op":"insert","entity":"Note","values":{"text":"durable \#(index)"}}"#, at: socket
                ))
            #expect(reply.contains(#""ok":true"#), "\(reply)")
            if let range = reply.range(of: #"x-coredata://[^"]*"#, options: .regularExpression) {
                uris.append(String(reply[range]))
            }
        }
        #expect(uris.count == 5)
        // Stop the daemon (its pid is the traced process's), then read the trace.
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        let daemonPID = try #require(lines.first.flatMap { Int32($0.split(separator: " ").first ?? "") })
        kill(daemonPID, SIGTERM)
        #expect(await tracer.exited(within: 30), "almanacd (traced) did not stop within 30 s of SIGTERM")
        let all = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)

        // For each insert's reply (its URI written to the socket), a sync of the personal store since the last reply.
        var syncedSinceLastReply = false
        var checked = 0
        for line in all {
            if (line.contains("fsync(") || line.contains("fdatasync(")) && line.contains("personal.sqlite") {
                syncedSinceLastReply = true
            } else if let uri = uris.first(where: { line.contains($0) }), !line.contains("personal.sqlite") {
                #expect(syncedSinceLastReply, "the reply with \(uri) was written before the store was synced: \(line)")
                syncedSinceLastReply = false
                checked += 1
            }
        }
        #expect(checked == 5, "found \(checked) of the 5 replies in the trace")
    }
}
