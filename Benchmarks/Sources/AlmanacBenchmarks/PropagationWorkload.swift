import BenchmarkSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Change propagation between two `almanacd` sharing their personal store in PostgreSQL (issue 25): favourites
/// inserted on daemon A by 1 and by 8 writers; for each, the time from the writer reading A's acknowledgement to a
/// subscriber of daemon B reading the `objectsChanged` event that names it. Needs the server of
/// `ALMANAC_POSTGRES_URL` (`scripts/bench-all.sh` starts a private cluster when it is unset and PostgreSQL is
/// installed); the rows say skipped without it.
enum PropagationWorkload {
    static let writerCounts = [1, 8]

    static func run(_ context: DaemonWorkloads.Context) throws -> [ResultRow] {
        func name(_ percentile: String, _ writers: Int) -> String {
            "daemon→daemon change propagation \(percentile), PostgreSQL, \(writers) writer\(writers == 1 ? "" : "s")"
        }
        guard let server = ProcessInfo.processInfo.environment["ALMANAC_POSTGRES_URL"], !server.isEmpty,
            var components = URLComponents(string: server)
        else {
            let reason = "ALMANAC_POSTGRES_URL is unset (no PostgreSQL server; scripts/postgres-cluster.sh start)"
            say("  skipped: \(reason)")
            return writerCounts.flatMap { writers in
                [ResultRow.skipped(name("p50", writers), target: .none, reason: reason),
                 ResultRow.skipped(name("p99", writers), target: .atMost(0.1), unit: "s", reason: reason)]
            }
        }
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" }
            + [URLQueryItem(name: "schema", value: "bench_propagation_\(getpid())")]
        guard let store = components.url?.absoluteString else { throw BenchError("bad ALMANAC_POSTGRES_URL \(server)") }

        let inbox = context.root.appendingPathComponent("inbox")
        try DaemonWorkloads.writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 25,
                                              prefix: "prop")
        var daemons: [DaemonProcess] = []
        defer { daemons.forEach { $0.stop() } }
        for side in ["a", "b"] {
            let root = context.root.appendingPathComponent(side)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let daemon = try DaemonProcess(binary: context.binary, root: root, inbox: inbox,
                                           arguments: ["--personal-store", store])
            daemons.append(daemon)
            _ = try daemon.waitUntilReady(timeout: 60)
        }
        let subscriber = try UnixLineClient(path: daemons[1].socketPath, receiveTimeout: 10)
        let subscribed = try subscriber.request(#"{"id":1,"op":"subscribe"}"#)
        guard subscribed["subscribed"] as? Bool == true else { throw BenchError("subscribe failed: \(subscribed)") }

        var rows: [ResultRow] = []
        for writers in writerCounts {
            let perWriter = (context.quick ? 80 : 400) / writers
            var round = 0
            let results = try DaemonWorkloads.rounds(context.rounds, warmUp: true, key: { $0.propagation.p99 }) {
                round += 1
                let result = try measure(writers: writers, perWriter: perWriter, round: round,
                                         writer: daemons[0].socketPath, subscriber: subscriber)
                say(String(format: "  %d writer(s), round %d: propagation p50 %.2f ms p99 %.2f ms; "
                               + "acknowledgement p50 %.2f ms p99 %.2f ms", writers, round,
                           result.propagation.p50 * 1000, result.propagation.p99 * 1000,
                           result.acknowledgement.p50 * 1000, result.acknowledgement.p99 * 1000))
                return result
            }
            let note = "\(writers * perWriter) favourites inserted on daemon A per round, event read on daemon B; "
                + "anchor: the insert's own round trip on A (request to acknowledgement)"
            for (percentile, value) in [("p50", \Latencies.p50), ("p99", \Latencies.p99)] {
                rows.append(ResultRow(
                    workload: name(percentile, writers),
                    ours: Figure(samples: results.map { $0.propagation[keyPath: value] }, unit: "s"),
                    anchor: Figure(samples: results.map { $0.acknowledgement[keyPath: value] }, unit: "s"),
                    target: percentile == "p99" ? .atMost(0.1) : .none, note: note))
            }
        }
        return rows
    }

    struct Latencies {
        var p50: Double
        var p99: Double

        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            func at(_ fraction: Double) -> Double {
                guard !sorted.isEmpty else { return .nan }
                return sorted[max(0, min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
            }
            p50 = at(0.5)
            p99 = at(0.99)
        }
    }

    struct Round {
        var propagation: Latencies
        var acknowledgement: Latencies
    }

    /// A thread's result: written by the thread before it leaves the group, read after the group's wait.
    final class Slot<Value>: @unchecked Sendable {  // one writer (its thread), read after DispatchGroup.wait
        var value: Value?
    }

    /// One round: `writers` threads insert `perWriter` favourites each on daemon A while this thread reads B's events.
    static func measure(writers: Int, perWriter: Int, round: Int, writer path: String,
                        subscriber: UnixLineClient) throws -> Round {
        let group = DispatchGroup()
        typealias Insert = (uri: String, acknowledged: UInt64, trip: Double)
        let slots = (0..<writers).map { _ in Slot<Result<[Insert], any Error>>() }
        for index in 0..<writers {
            let slot = slots[index]
            group.enter()
            Thread {
                defer { group.leave() }
                slot.value = Result {
                    let client = try UnixLineClient(path: path, receiveTimeout: 10)
                    var done: [Insert] = []
                    for number in 0..<perWriter {
                        let line = #"{"id":\#(number),"op":"insert","entity":"Favorite","values":"#
                            + #"{"conferenceAcronym":"prop","sessionGUID":"\#(writers)-r\#(round)-w\#(index)-\#(number)"}}"#
                        let sent = DispatchTime.now().uptimeNanoseconds
                        let reply = try client.request(line)
                        let acknowledged = DispatchTime.now().uptimeNanoseconds
                        guard reply["ok"] as? Bool == true, let uri = reply["uri"] as? String else {
                            throw BenchError("insert failed: \(reply)")
                        }
                        done.append((uri, acknowledged, Double(acknowledged - sent) / 1e9))
                    }
                    return done
                }
            }.start()
        }
        // The events, read here while the writers write: when each URI was first named.
        let expected = writers * perWriter
        var arrivals: [String: UInt64] = [:]
        while arrivals.count < expected {
            // No event for 10 s (the subscriber's receive timeout): the missing ones are reported below.
            guard let line = try? subscriber.readLine() else { break }
            let read = DispatchTime.now().uptimeNanoseconds
            guard let event = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                event["event"] as? String == "objectsChanged"
            else { continue }
            for uri in event["inserted"] as? [String] ?? [] where arrivals[uri] == nil { arrivals[uri] = read }
        }
        group.wait()
        var propagation: [Double] = []
        var trips: [Double] = []
        let inserts = try slots.flatMap { try $0.value!.get() }
        let missing = inserts.filter { arrivals[$0.uri] == nil }
        guard missing.isEmpty else {
            throw BenchError("daemon B announced \(inserts.count - missing.count) of \(inserts.count) inserts; "
                + "none of \(missing.prefix(3).map(\.uri)) within 10 s of the last event")
        }
        for insert in inserts {
            let arrived = arrivals[insert.uri]!
            // An event read before the writer read its acknowledgement counts as 0.
            propagation.append(arrived > insert.acknowledged ? Double(arrived - insert.acknowledged) / 1e9 : 0)
            trips.append(insert.trip)
        }
        return Round(propagation: Latencies(propagation), acknowledgement: Latencies(trips))
    }
}
