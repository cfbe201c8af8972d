import AlmanacWire
import Foundation
import Glibc
import ObjectGraph
import Testing

/// A PostgreSQL cluster of the test's own (`scripts/postgres-cluster.sh`), so that stopping its server disturbs no
/// other test. The script runs through ``ProcessRunner/spawn(_:arguments:environment:within:)``, bounded: a script
/// that hangs fails the test.
private final class PrivateCluster: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh").path

    let url: String

    private init(url: String) { self.url = url }

    /// Runs `body` with a new cluster, and stops the cluster afterwards, also when `body` throws.
    static func with(_ body: (PrivateCluster) async throws -> Void) async throws {
        let result = try await ProcessRunner.spawn("/bin/bash", arguments: [script, "start"], within: 120)
        try #require(result.status == 0, "postgres-cluster.sh start failed: \(result.stderr)")
        let cluster = PrivateCluster(url: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        do {
            try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// `pause` (the server stops, `pg_ctl stop -m fast`) or `resume`.
    func run(_ command: String) async throws {
        let result = try await ProcessRunner.spawn("/bin/bash", arguments: [Self.script, command, url], within: 120)
        try #require(result.status == 0, "postgres-cluster.sh \(command) failed: \(result.stderr)")
    }

    private func stop() async {
        _ = try? await ProcessRunner.spawn("/bin/bash", arguments: [Self.script, "stop", url], within: 120)
    }

    /// The URL of a schema on the cluster.
    func store(schema: String) -> String { url + "&schema=" + schema }
}

/// Writes that the daemon acknowledged (`ok`) and the error codes of the others.
private final class WriteLog: Sendable {
    private let state = LockedValue(([String](), [String]()))

    func acknowledged(_ guid: String) { state.withLock { $0.0.append(guid) } }
    func failed(_ code: String) { state.withLock { $0.1.append(code) } }
    var acknowledged: [String] { state.withLock { $0.0 } }
    var failures: [String] { state.withLock { $0.1 } }
}

/// The PostgreSQL server going away under daemons that share their personal store through it. Needs
/// `ALMANAC_POSTGRES_URL` like the other PostgreSQL tests (it shows that PostgreSQL is installed), but runs on a
/// cluster of its own.
@Suite(
    .serialized, .timeLimit(.minutes(5)),
    .enabled(
        if: ProcessInfo.processInfo.environment["ALMANAC_POSTGRES_URL"].map { !$0.isEmpty } == true
            || ProcessInfo.processInfo.environment["CI"] == "true",
        "ALMANAC_POSTGRES_URL is unset: no PostgreSQL installed to test against (scripts/postgres-cluster.sh)"))
struct SharedStoreOutageTests {
    static func favourite(_ id: Int, _ guid: String) -> String {
        #"{"id":\#(id),"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"ssd26","sessionGUID":"\#(guid)"}}"#
    }

    /// The session GUIDs of every favourite, as a daemon answers them.
    static func storedGUIDs(_ daemon: ChildDaemon) -> Set<String> {
        let reply = daemon.send(#"{"id":90,"op":"fetch","entity":"Favorite","properties":["sessionGUID"]}"#)
        return Set(
            (reply["objects"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["values"]?.objectValue?["sessionGUID"]?.stringValue
            })
    }

    /// Inserts favourites one after the other on a thread of its own until `stop` is set or, when
    /// `untilUnreachable`, the daemon no longer answers; logs what was acknowledged and what failed.
    private static func write(
        at socket: String, as client: String, log: WriteLog, stop: LockedValue<Bool>, untilUnreachable: Bool
    ) async {
        await onOwnThread {
            var number = 0
            while !stop.withLock({ $0 }) {
                number += 1
                let guid = "\(client)-\(number)"
                guard let text = ChildDaemon.request(Self.favourite(number, guid), at: socket),
                    let reply = try? JSONValue(parsing: text).objectValue
                else {
                    if untilUnreachable { return }
                    log.failed("no reply")
                    continue
                }
                if reply["ok"] == .bool(true) {
                    log.acknowledged(guid)
                } else {
                    log.failed(ChildDaemon.errorCode(reply) ?? "\(reply)")
                }
            }
        }
    }

    @Test func theServerStoppedUnderWritesLosesNoAcknowledgedWriteAndTheDaemonRecovers() async throws {
        try await PrivateCluster.with { cluster in
            let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
            defer { scratch.remove() }
            let daemon = try ChildDaemon(
                inbox: scratch.inbox, state: scratch.root.appendingPathComponent("state"), socket: scratch.socket,
                arguments: ["--personal-store", cluster.store(schema: "outage")])
            let countFavourites = #"{"id":2,"op":"count","entity":"Favorite"}"#
            let countSessions = #"{"id":3,"op":"count","entity":"Session"}"#
            #expect(daemon.send(countFavourites)["count"]?.intValue == 0)
            let sessions = daemon.send(countSessions)["count"]?.intValue
            #expect((sessions ?? 0) > 0)

            // A writer inserts favourites one after the other, through the outage.
            let log = WriteLog()
            let stop = LockedValue(false)
            let socket = daemon.socket
            let writer = Task {
                await Self.write(at: socket, as: "g", log: log, stop: stop, untilUnreachable: false)
            }
            do {
                try await outageWait("some writes", log.acknowledged.count >= 20)
                try await cluster.run("pause")
                try await outageWait("a write refused as unavailable", log.failures.contains("unavailable"))
                // While the server is down: schedule queries answer, the personal count from its last state, stale.
                #expect(daemon.send(countSessions)["count"]?.intValue == sessions)
                let staleCount = daemon.send(countFavourites)
                #expect(staleCount["ok"] == .bool(true), "\(staleCount)")
                #expect(staleCount["stale"] == .bool(true), "\(staleCount)")
                let stores = daemon.send(#"{"id":4,"op":"stores"}"#)
                let personal = stores["stores"]?.arrayValue?.first?.objectValue
                #expect(personal?["connection"]?.objectValue?["state"]?.stringValue == "reconnecting", "\(stores)")
                let acknowledgedWhileDown = log.acknowledged.count

                try await cluster.run("resume")
                try await outageWait(
                    "writes acknowledged again", log.acknowledged.count >= acknowledgedWhileDown + 20)
            } catch {
                stop.withLock { $0 = true }
                await writer.value
                throw error
            }
            stop.withLock { $0 = true }
            await writer.value
            #expect(Set(log.failures).subtracting(["unavailable"]).isEmpty, "\(Set(log.failures))")
            try await outageWait("the listener to reconnect") {
                daemon.send(#"{"id":5,"op":"stores"}"#)["stores"]?.arrayValue?.first?.objectValue?["connection"]?
                    .objectValue?["state"]?.stringValue == "connected"
            }
            // Every acknowledged write is in the database; the count is no longer stale.
            let stored = Self.storedGUIDs(daemon)
            #expect(Set(log.acknowledged).subtracting(stored).isEmpty)
            let count = daemon.send(countFavourites)
            #expect(count["stale"] == nil)
            #expect(count["count"]?.intValue == Int64(stored.count))
            #expect(await daemon.stop())
        }
    }

    @Test func aDaemonKilledInTheMiddleOfWritesLosesNoAcknowledgedWrite() async throws {
        try await PrivateCluster.with { cluster in
            let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
            defer { scratch.remove() }
            let store = cluster.store(schema: "killed")
            let victim = try ChildDaemon(
                inbox: scratch.inbox, state: scratch.root.appendingPathComponent("victim"), socket: scratch.socket,
                arguments: ["--personal-store", store])
            let log = WriteLog()
            let stop = LockedValue(false)
            let socket = victim.socket
            // Four clients write at once until the daemon is gone.
            let writers = Task {
                await withDiscardingTaskGroup { group in
                    for client in 0..<4 {
                        group.addTask {
                            await Self.write(at: socket, as: "c\(client)", log: log, stop: stop, untilUnreachable: true)
                        }
                    }
                }
            }
            do {
                try await outageWait("some writes", log.acknowledged.count >= 40)
            } catch {
                stop.withLock { $0 = true }
                await writers.value
                throw error
            }
            kill(victim.process.processIdentifier, SIGKILL)
            await writers.value
            #expect(await victim.process.exited(within: 30))
            #expect(log.failures.isEmpty, "\(log.failures.prefix(3))")
            let otherSocket = scratch.socket + ".2"
            defer { unlink(otherSocket) }
            let survivor = try ChildDaemon(
                inbox: scratch.inbox, state: scratch.root.appendingPathComponent("survivor"), socket: otherSocket,
                arguments: ["--personal-store", store])
            let stored = Self.storedGUIDs(survivor)
            #expect(Set(log.acknowledged).subtracting(stored).isEmpty)
            #expect(stored.count >= log.acknowledged.count)
            #expect(await survivor.stop())
        }
    }
}

/// Waits for a condition, looking every 20 ms, for at most 60 s (a bound for a hung daemon, not a latency check).
private func outageWait(_ what: String, _ condition: @autoclosure () -> Bool) async throws {
    try await outageWait(what) { condition() }
}

private func outageWait(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
