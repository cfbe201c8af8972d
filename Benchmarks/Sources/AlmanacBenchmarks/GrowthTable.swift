import BenchmarkSupport
import Foundation

/// How the daemon's cost grows with what it serves (issue 26): the same fetch and count workloads at 10k, 100k and
/// 1M sessions (100 stores for the first two, 1,000 for 1M), 8 clients each, with p50/p99, throughput and VmRSS per
/// size. Not a bench-all step (1M sessions take minutes to write): `scripts/growth-table.sh` runs it.
///
///   AlmanacBenchmarks growth [--sizes 10000,100000,1000000] [--seconds 5] [--almanacd PATH] [--json PATH]
enum GrowthTable {
    struct Line: Codable {
        var sessions: Int
        var stores: Int
        var readySeconds: Double
        var rssReadyMegabytes: Double
        var rssAfterMegabytes: Double
        var workloads: [String: LoadGenerator.Report]
    }

    /// The workloads of every size: the sorted limit-50 fetch kept by the reply cache, the same at 1,000 offsets
    /// (cache misses), and counts with 1,000 different predicates (cache misses).
    static let workloads: [(String, [LoadGenerator.RequestKind])] = [
        ("sorted limit-50, cached", LoadGenerator.only("fetch", DaemonWorkloads.fetchLine)),
        ("sorted limit-50, 1,000 offsets", LoadGenerator.distinctFetches()),
        ("count, 1,000 predicates", [LoadGenerator.RequestKind(name: "count", weight: 1) { client, n, _ in
            let prefix = ((client * 997 + n * 31) % 1000 + 1000) % 1000
            return #"{"id":\#(n),"op":"count","entity":"Session","predicate":"title BEGINSWITH 'Session \#(prefix)'"}"#
        }]),
    ]

    static func run(arguments: Arguments, binary: String) throws -> [Line] {
        let sizes = (arguments.value("--sizes") ?? "10000,100000,1000000").split(separator: ",").compactMap {
            Int($0)
        }
        let seconds = Double(arguments.value("--seconds") ?? "5") ?? 5
        let root = URL(fileURLWithPath: "/tmp/almanac-growth-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        var lines: [Line] = []
        say("almanacd: \(binary); load average before: \(ResultFile.loadAverage)")
        for sessions in sizes {
            let stores = sessions >= 1_000_000 ? 1_000 : 100
            let folder = root.appendingPathComponent("\(sessions)")
            let inbox = folder.appendingPathComponent("inbox")
            let writing = ContinuousClock.now
            try DaemonWorkloads.writeBinaryStores(in: inbox, count: stores, sessionsPerStore: sessions / stores,
                                                  roomsPerStore: 10, seed: 2026, prefix: "g")
            say("\(sessions) sessions in \(stores) stores written in \(ContinuousClock.now - writing)")
            let daemon = try DaemonProcess(binary: binary, root: folder, inbox: inbox)
            defer { daemon.stop() }
            let ready = try daemon.waitUntilReady(timeout: 600)
            let rssReady = daemon.residentMegabytes() ?? .nan
            var reports: [String: LoadGenerator.Report] = [:]
            for (name, mix) in workloads {
                let report = LoadGenerator(socketPath: daemon.socketPath, clients: 8, mix: mix,
                                           requestsPerClient: 1_000_000, seconds: seconds, warmUp: 20).run()
                say("  \(sessions): \(name): " + report.summary)
                reports[name] = report
            }
            lines.append(Line(sessions: sessions, stores: stores, readySeconds: ready, rssReadyMegabytes: rssReady,
                              rssAfterMegabytes: daemon.residentMegabytes() ?? .nan, workloads: reports))
            daemon.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        say("load average after: \(ResultFile.loadAverage)")
        print(table(lines))
        return lines
    }

    /// One row per size: READY time, RSS, and p50/p99 and rate of each workload.
    static func table(_ lines: [Line]) -> String {
        var header = "| sessions | stores | READY | RSS ready / after |"
        var rule = "|---|---|---|---|"
        for (name, _) in workloads {
            header += " \(name): p50 / p99 / rate |"
            rule += "---|"
        }
        var text = [header, rule]
        for line in lines {
            var row = String(format: "| %d | %d | %.2f s | %.0f / %.0f MB |", line.sessions, line.stores,
                             line.readySeconds, line.rssReadyMegabytes, line.rssAfterMegabytes)
            for (name, _) in workloads {
                guard let report = line.workloads[name] else {
                    row += " — |"
                    continue
                }
                let errors = report.errorsByCode.values.reduce(0, +)
                row += String(format: " %.3f / %.3f ms / %.0f/s", report.p50 * 1000, report.p99 * 1000,
                              report.throughput) + (errors > 0 ? " (\(errors) errors) |" : " |")
            }
            text.append(row)
        }
        return text.joined(separator: "\n")
    }
}
