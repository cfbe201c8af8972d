import AlmanacWire
import Foundation
import Glibc
import Testing

/// `--event-loops`: the daemon serves its socket on as many event-loop threads as it is told, and refuses a count
/// outside 1…256 before serving anything.
@Suite(.serialized)
struct EventLoopCountTests {
    /// The names of a process's threads that are NIO event loops (NIO names them `NIO-ELT-<group>-#<index>`), each
    /// once: a thread started from a loop's thread inherits its name.
    static func eventLoopThreads(of pid: Int32) -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let names = tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return Set(names.filter { $0.hasPrefix("NIO-ELT") })
    }

    @Test func theDaemonServesOnTheEventLoopsItIsGiven() async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let state = scratch.root.appendingPathComponent("state")
        // One more than the one-per-core default, so the count shows the option took on any machine.
        let count = min(ProcessInfo.processInfo.activeProcessorCount + 1, 256)
        let daemon = try ChildDaemon(
            inbox: scratch.inbox, state: state, socket: scratch.socket,
            arguments: ["--event-loops", "\(count)"])
        #expect(daemon.send(#"{"id":1,"op":"ping"}"#)["ok"] == .bool(true))
        let sessions = daemon.send(#"{"id":2,"op":"count","entity":"Session"}"#)["count"]?.intValue ?? 0
        #expect(sessions > 0, "the daemon serves no sessions")
        // Eight connections at once, spread over the loops, each answered.
        await withTaskGroup(of: String?.self) { group in
            for index in 0..<8 {
                group.addTask { ChildDaemon.request(#"{"id":\#(index),"op":"ping"}"#, at: scratch.socket) }
            }
            for await reply in group { #expect(reply?.contains("\"ok\":true") == true, "\(reply ?? "no reply")") }
        }
        let threads = Self.eventLoopThreads(of: daemon.process.processIdentifier)
        #expect(threads.count == count, "event-loop threads: \(threads.sorted())")
        #expect(await daemon.stop())
        #expect(daemon.process.terminationStatus == 0)
    }

    @Test(arguments: ["0", "257"])
    func aCountOutsideTheRangeIsRefusedBeforeServing(_ count: String) async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let state = scratch.root.appendingPathComponent("state")
        let process = try DaemonProcessTests.launch(
            try DaemonProcessTests.binary("almanacd"),
            [
                "--watch", scratch.inbox.path, "--state", state.path, "--socket", scratch.socket,
                "--event-loops", count,
            ],
            environment: ["HOME": state.path, "PATH": "/usr/bin:/bin"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(await process.exited(within: 30))
        #expect(process.terminationStatus != 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.socket), "a socket was made for a refused count")
    }
}
