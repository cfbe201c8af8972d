import BenchmarkSupport
import Foundation
import ObjectGraph
import Schedules

#if canImport(Glibc)
import Glibc
#endif

/// Workloads of `almanacd` over its Unix socket: fetch latency and throughput with 100k sessions in 100 stores,
/// ping against redis-server, start-up and resident memory with 1,000 files, and a dropped FOSDEM schedule's time
/// to queryable. Each is repeated in rounds (a fresh load-generator run, daemon start or drop per round) and reports
/// the median and spread over the rounds.
enum DaemonWorkloads {
    struct Context: Sendable {
        var quick: Bool
        var binary: String
        var root: URL

        /// Rounds of a workload: 3 with `--quick`, 3 to 5 (until stable) otherwise.
        var rounds: Figure.Runs { quick ? Figure.Runs(minimum: 3, maximum: 3) : Figure.Runs(minimum: 3, maximum: 5) }
    }

    static let all: [(String, @Sendable (Context) throws -> [ResultRow])] = [
        ("fetch", fetch), ("ping", pingVersusRedis), ("startup", startup), ("drop", droppedFile),
        ("propagation", PropagationWorkload.run),
    ]

    /// Runs the workloads whose name contains `filter`; prints their rows and returns them.
    static func run(quick: Bool, filter: String?, binary: String?) -> [ResultRow] {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let binary = binary ?? ProcessInfo.processInfo.environment["ALMANACD"]
            ?? repo.appendingPathComponent(".build-bench/release/almanacd").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            say("almanacd not found at \(binary): build it with `swift build -c release --product almanacd "
                    + "--package-path \(repo.path) --scratch-path \(repo.path)/.build-bench` or pass --almanacd PATH")
            return []
        }
        let root = URL(fileURLWithPath: "/tmp/almanac-bench-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        say("almanacd: \(binary); load average before: \(ResultFile.loadAverage)")
        var rows: [ResultRow] = []
        for (name, workload) in all where filter.map({ name.localizedCaseInsensitiveContains($0) }) ?? true {
            let folder = root.appendingPathComponent(name)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            do {
                rows += try workload(Context(quick: quick, binary: binary, root: folder))
            } catch {
                say("\(name): error: \(error)")
                rows.append(ResultRow.failed("daemon \(name)", target: .none, error: error))
            }
            try? FileManager.default.removeItem(at: folder)
        }
        say("load average after: \(ResultFile.loadAverage)")
        ResultTable.print(rows)
        return rows
    }

    /// Runs `round` (once to warm up when `warmUp`, then until `runs` says stop, judged on `key`) and returns every
    /// counted round's result.
    static func rounds<Round>(_ runs: Figure.Runs, warmUp: Bool = false, key: (Round) -> Double,
                              _ round: () throws -> Round) rethrows -> [Round] {
        if warmUp { _ = try round() }
        var results: [Round] = []
        while results.count < runs.maximum {
            results.append(try round())
            if runs.isStable(results.map(key)) { break }
        }
        return results
    }

    /// A row measured over load-generator rounds: errors in any round make it a miss.
    static func loadRow(_ workload: String, _ reports: [LoadGenerator.Report], unit: String,
                        _ value: (LoadGenerator.Report) -> Double, anchor: Figure?, target: ResultRow.Target,
                        note: String) -> ResultRow {
        var row = ResultRow(workload: workload, ours: Figure(samples: reports.map(value), unit: unit), anchor: anchor,
                            target: target, note: note)
        let errors = reports.reduce(0) { $0 + $1.errorsByCode.values.reduce(0, +) }
        if errors > 0 {
            if row.pass != nil { row.pass = false }
            row.note = (row.note.map { $0 + "; " } ?? "") + "\(errors) errors"
        }
        return row
    }

    // MARK: Workloads

    static let fetchLine = #"{"id":1,"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}"#

    /// 100 binary stores with 100k sessions in total: sorted limit-50 fetch latency and throughput with 1 and 8
    /// clients, beside the cheapest in-process equivalent (a top-50 scan of an array of 100k structs).
    static func fetch(_ context: Context) throws -> [ResultRow] {
        let inbox = context.root.appendingPathComponent("inbox")
        let stores = 100, perStore = context.quick ? 200 : 1_000
        let total = stores * perStore
        let generation = ContinuousClock.now
        try writeBinaryStores(in: inbox, count: stores, sessionsPerStore: perStore, roomsPerStore: 10, seed: 2026,
                              prefix: "big")
        say("  wrote \(stores) binary stores, \(total) sessions in \(ContinuousClock.now - generation)")
        let daemon = try DaemonProcess(binary: context.binary, root: context.root, inbox: inbox)
        defer { daemon.stop() }
        let ready = try daemon.waitUntilReady(timeout: 300)
        let client = try UnixLineClient(path: daemon.socketPath)
        let count = try client.request(#"{"id":1,"op":"count","entity":"Session"}"#)["count"] as? Int ?? -1
        say(String(format: "  almanacd (pid %d) ready after %.2f s serving %d sessions (RSS %.0f MB)",
                   daemon.process.processIdentifier, ready, count, daemon.residentMegabytes() ?? .nan))
        guard count >= total else { throw BenchError("the daemon serves \(count) sessions, expected \(total)") }
        let sample = try client.request(fetchLine)
        let objects = sample["objects"] as? [Any] ?? []
        guard objects.count == 50 else { throw BenchError("the fetch returned \(objects.count) objects: \(sample)") }

        // The anchors: the same sort+limit over an in-process array, by a full sort and by a top-50 scan (what an
        // index or a bounded heap gives).
        struct Row { var start: Double; var end: Double; var title: String; var room: String }
        var generator = SplitMix(seed: 2026)
        let rows = (0..<total).map { index in
            let start = Double(generator.next() % (7 * 24 * 60)) * 60
            return Row(start: start, end: start + 1800, title: "Session \(index)", room: "Room \(index % 10)")
        }
        let anchorRuns = Figure.Runs.standard(quick: context.quick)
        let sortAnchor = Figure.timing(anchorRuns) {
            let top = Array(rows.sorted { $0.start < $1.start }.prefix(50))
            precondition(top.count == 50)
        }
        let scanAnchor = Figure.timing(anchorRuns) {
            var best: [Row] = []
            best.reserveCapacity(51)
            for row in rows where best.count < 50 || row.start < best[49].start {
                let index = best.firstIndex { $0.start > row.start } ?? best.endIndex
                best.insert(row, at: index)
                if best.count > 50 { best.removeLast() }
            }
            precondition(best.count == 50)
        }
        let scanRate = scanAnchor.rate(items: 1, unit: "fetches/s")
        let note = "\(stores) stores, \(total / 1000)k sessions; anchor: in-process top-50 scan of \(total / 1000)k "
            + "structs (a full sort+prefix(50): \(Format.figure(sortAnchor)))"

        let single = rounds(context.rounds, key: \.p50) {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: 1,
                                       mix: LoadGenerator.only("fetch", fetchLine),
                                       requestsPerClient: context.quick ? 1_000 : 5_000,
                                       seconds: context.quick ? 3 : 10, warmUp: 200).run()
            say("  1 client:  " + report.summary)
            return report
        }
        let eight = rounds(context.rounds, key: \.throughput) {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: 8,
                                       mix: LoadGenerator.only("fetch", fetchLine), requestsPerClient: 200_000,
                                       seconds: context.quick ? 1 : 5, warmUp: 20).run()
            say("  8 clients: " + report.summary)
            return report
        }
        // The same fetch with 1,000 different offsets, so the daemon's reply cache (256 replies) mostly misses.
        let distinct = rounds(context.rounds, key: \.throughput) {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: 8,
                                       mix: LoadGenerator.distinctFetches(), requestsPerClient: 200_000,
                                       seconds: context.quick ? 1 : 5, warmUp: 20).run()
            say("  8 clients, distinct offsets: " + report.summary)
            return report
        }
        // The physical limit: a minimal server on a Unix socket answering every line with the daemon's own
        // 50-object reply, driven by the same load generator (EchoServer, in this process).
        let cannedReply = try client.roundTrip(Array((fetchLine + "\n").utf8))
        let echo = try EchoServer(socketPath: context.root.appendingPathComponent("echo.sock").path,
                                  reply: cannedReply)
        let echoed = rounds(context.rounds, key: \.throughput) {
            let report = LoadGenerator(socketPath: echo.socketPath, clients: 8,
                                       mix: LoadGenerator.only("fetch", fetchLine), requestsPerClient: 200_000,
                                       seconds: context.quick ? 1 : 5, warmUp: 20).run()
            say("  8 clients, echo server with the canned reply: " + report.summary)
            return report
        }
        echo.stop()
        let echoRate = Figure(samples: echoed.map(\.throughput), unit: "fetches/s")
        let echoNote = "anchor: a minimal blocking server on a Unix socket answering every line with the daemon's "
            + "\(cannedReply.count)-byte reply, same load generator, same run"
        // `SessionsAt` at 1,000 different moments of the week, so that the reply cache misses: what the stores'
        // sorted orders answer (the sessions under way walk one longest session's worth of each order).
        let templates = rounds(context.rounds, key: \.p50) {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: 1, mix: LoadGenerator.sessionsAtMoments(),
                                       requestsPerClient: context.quick ? 1_000 : 5_000,
                                       seconds: context.quick ? 3 : 10, warmUp: 50).run()
            say("  1 client, SessionsAt at 1,000 moments: " + report.summary)
            return report
        }
        let mixes = rounds(context.rounds, key: \.throughput) {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: 8, mix: LoadGenerator.standardMix(),
                                       requestsPerClient: 100_000, seconds: context.quick ? 2 : 5, warmUp: 5).run()
            say("  8 clients, standard mix: " + report.summary)
            return report
        }
        let mixNote = "70% fetch, 10% template (SessionsAt at one moment), 15% count, 5% insert (Favorite, SQLite "
            + "store); \(stores) stores, \(total / 1000)k sessions"
        return [
            loadRow("daemon fetch p50, sorted limit-50, 1 client", single, unit: "s", \.p50, anchor: scanAnchor,
                    target: .atMost(0.0005), note: note),
            loadRow("daemon fetch p99, sorted limit-50, 1 client", single, unit: "s", \.p99, anchor: scanAnchor,
                    target: .atMost(0.002), note: note),
            loadRow("daemon fetch throughput, sorted limit-50, 1 client", single, unit: "fetches/s", \.throughput,
                    anchor: scanRate, target: .none, note: note),
            loadRow("daemon fetch p50, sorted limit-50, 8 clients", eight, unit: "s", \.p50, anchor: scanAnchor,
                    target: .none, note: note),
            loadRow("daemon fetch p99, sorted limit-50, 8 clients", eight, unit: "s", \.p99, anchor: scanAnchor,
                    target: .none, note: note),
            loadRow("daemon fetch throughput, sorted limit-50, 8 clients", eight, unit: "fetches/s", \.throughput,
                    anchor: scanRate, target: .atLeast(10_000), note: note),
            loadRow("daemon fetch throughput, sorted limit-50, 8 clients, vs echo server (canned reply)", eight,
                    unit: "fetches/s", \.throughput, anchor: echoRate, target: .none, note: echoNote),
            loadRow("daemon fetch throughput, limit-50 at 1,000 offsets (reply cache misses), 8 clients", distinct,
                    unit: "fetches/s", \.throughput, anchor: scanRate, target: .atLeast(20_000),
                    note: note + "; offsets 0-999, more than the 256 replies the daemon keeps"),
            loadRow("daemon fetch p99, limit-50 at 1,000 offsets (reply cache misses), 8 clients", distinct,
                    unit: "s", \.p99, anchor: nil, target: .atMost(0.001),
                    note: "\(stores) stores, \(total / 1000)k sessions; offsets 0-999"),
            loadRow("daemon fetch throughput, limit-50 at 1,000 offsets, 8 clients, vs echo server (canned reply)",
                    distinct, unit: "fetches/s", \.throughput, anchor: echoRate, target: .none, note: echoNote),
            loadRow("daemon SessionsAt template p50, 1,000 moments (reply cache misses), 1 client", templates,
                    unit: "s", \.p50, anchor: nil, target: .atMost(0.0002),
                    note: "\(stores) stores, \(total / 1000)k sessions; `start <= $NOW AND end > $NOW` sorted by start, "
                        + "limit 50, NOW every 10 minutes of the week"),
            loadRow("daemon standard mix throughput, 8 clients", mixes, unit: "requests/s", \.throughput,
                    anchor: nil, target: .atLeast(15_000), note: mixNote),
            loadRow("daemon standard mix p99, 8 clients", mixes, unit: "s", \.p99, anchor: nil, target: .atMost(0.005),
                    note: mixNote),
            loadRow("daemon standard mix max, 8 clients", mixes, unit: "s", \.max, anchor: nil, target: .atMost(0.05),
                    note: mixNote),
        ]
    }

    /// `ping` over the daemon's socket against redis-server's PING over a Unix socket, 1 and 8 clients.
    ///
    /// The rows with targets compare the two servers under one client: this load generator (a blocking thread per
    /// connection) sends `PING` to redis as it sends `ping` to the daemon. On a 2-core machine the client's own
    /// work takes the servers' cores, so a rate measured with redis-benchmark's client (one C thread multiplexing
    /// every connection) against ours with this one compares the clients as much as the servers; those ratios
    /// stay as rows without targets.
    static func pingVersusRedis(_ context: Context) throws -> [ResultRow] {
        let total = context.quick ? 10_000 : 100_000
        let clientCounts = [1, 8]
        func name(_ clients: Int) -> String {
            "daemon ping rate, \(clients) client\(clients == 1 ? "" : "s"), vs redis PING"
        }
        func generator(_ socket: String, clients: Int, _ mix: [LoadGenerator.RequestKind]) -> LoadGenerator {
            LoadGenerator(socketPath: socket, clients: clients, mix: mix, requestsPerClient: total / clients,
                          seconds: 60, warmUp: 100)
        }
        var redis = RedisRates()
        var missing: String?
        if let redisServer = Subprocess.which("redis-server"),
            let redisBenchmark = Subprocess.which("redis-benchmark")
        {
            redis = try measureRedis(server: redisServer, benchmark: redisBenchmark, clientCounts: clientCounts,
                                     requests: total, context: context) { socket, clients in
                generator(socket, clients: clients, LoadGenerator.only("PING", "PING\r", expectedAnswer: "+PONG\r"))
            }
        } else {
            missing = "redis-benchmark not installed (apt-get install redis-server)"
            say("  skipped redis: \(missing!)")
        }

        let inbox = context.root.appendingPathComponent("inbox")
        try writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 1, prefix: "ping")
        let daemon = try DaemonProcess(binary: context.binary, root: context.root, inbox: inbox)
        defer { daemon.stop() }
        _ = try daemon.waitUntilReady(timeout: 60)
        var rows: [ResultRow] = []
        for clients in clientCounts {
            let reports = rounds(context.rounds, key: \.throughput) {
                let report = generator(daemon.socketPath, clients: clients,
                                       LoadGenerator.only("ping", #"{"id":1,"op":"ping"}"#)).run()
                say("  almanacd ping: " + report.summary)
                return report
            }
            let p50 = Figure(samples: reports.map(\.p50), unit: "s")
            let sameClient = loadRow(name(clients), reports, unit: "requests/s", \.throughput,
                                     anchor: redis.sameClient[clients],
                                     target: clients == 8 ? .ratioAtLeast(1.0) : .ratioAtLeast(0.5),
                                     note: "\(total) requests per round over a Unix socket, both servers driven by "
                                        + "this load generator; p50 \(Format.figure(p50))")
            let ownClient = loadRow(name(clients) + " with redis-benchmark's own client", reports, unit: "requests/s",
                                    \.throughput, anchor: redis.ownClient[clients], target: .none,
                                    note: "the anchor is redis-benchmark (one C thread for every connection), ours "
                                        + "this load generator: the clients differ")
            rows += [sameClient, ownClient].map { row in
                guard let missing else { return row }
                var skipped = row
                skipped.pass = nil
                skipped.note = "skipped: \(missing); " + (row.note ?? "")
                return skipped
            }
        }
        return rows
    }

    /// redis-server's PING rates per client count: driven by the daemon's load generator, and by redis-benchmark.
    struct RedisRates {
        var sameClient: [Int: Figure] = [:]
        var ownClient: [Int: Figure] = [:]
    }

    /// redis-benchmark's PING rate (the faster of inline and multi-bulk) and the load generator's per client count,
    /// over rounds.
    static func measureRedis(server: String, benchmark: String, clientCounts: [Int], requests: Int,
                             context: Context,
                             generator: (_ socket: String, _ clients: Int) -> LoadGenerator) throws -> RedisRates {
        let redisSocket = context.root.appendingPathComponent("redis.sock").path
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: server)
        redis.arguments = ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "no", "--dir",
                           context.root.path, "--logfile", context.root.appendingPathComponent("redis.log").path]
        try redis.run()
        defer { Subprocess.terminate(redis) }
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? UnixLineClient(path: redisSocket)) == nil {
            guard ContinuousClock.now < deadline, redis.isRunning else {
                throw BenchError("redis-server did not start")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        var rates = RedisRates()
        for clients in clientCounts {
            let samples = try rounds(context.rounds, warmUp: true, key: { $0 }) { () throws -> Double in
                let output = try Subprocess.runCapturing(
                    benchmark, ["-s", redisSocket, "-t", "ping", "-n", "\(requests)", "-c", "\(clients)", "-q"],
                    timeout: 120)
                // "PING_INLINE: 52631.58 requests per second, p50=0.015 msec" (and PING_MBULK); take the faster.
                var best = 0.0
                for line in output.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                    let parts = line.split(separator: " ")
                    if let index = parts.firstIndex(of: "requests"), index > 0, let rate = Double(parts[index - 1]) {
                        best = max(best, rate)
                    }
                }
                guard best > 0 else { throw BenchError("no rate in redis-benchmark's output: \(output.suffix(300))") }
                return best
            }
            rates.ownClient[clients] = Figure(samples: samples, unit: "requests/s")
            say("  redis-benchmark -c \(clients): PING \(Format.figure(rates.ownClient[clients]!))")
            let reports = try rounds(context.rounds, key: \.throughput) { () throws -> LoadGenerator.Report in
                let report = generator(redisSocket, clients).run()
                guard report.errorsByCode.isEmpty, report.requests > 0 else {
                    throw BenchError("the load generator's PING to redis failed: \(report.summary)")
                }
                return report
            }
            rates.sameClient[clients] = Figure(samples: reports.map(\.throughput), unit: "requests/s")
            say("  load generator -c \(clients): redis PING \(Format.figure(rates.sameClient[clients]!))")
        }
        return rates
    }

    /// 1,000 small binary schedule files (200 with --quick): time from process start to READY=1, and VmRSS
    /// after it, over rounds with a fresh state folder each; the anchor loads the same files in-process.
    static func startup(_ context: Context) throws -> [ResultRow] {
        let inbox = context.root.appendingPathComponent("inbox")
        let files = context.quick ? 200 : 1_000
        try writeBinaryStores(in: inbox, count: files, sessionsPerStore: 20, roomsPerStore: 3, seed: 99,
                              prefix: "small")
        let bytes = (try? FileManager.default.contentsOfDirectory(atPath: inbox.path))?.reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: inbox.appendingPathComponent(name).path))?[.size]
                    as? Int ?? 0)
        } ?? 0
        say(String(format: "  wrote %d binary stores of 20 sessions (%.1f MB in total)", files, Double(bytes) / 1e6))
        let names = try FileManager.default.contentsOfDirectory(atPath: inbox.path).sorted()
        let anchor = try Figure.timing(context.quick ? Figure.Runs(minimum: 3, maximum: 3)
                                                     : Figure.Runs(minimum: 2, maximum: 3)) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            for name in names {
                try coordinator.addPersistentStore(type: .binary, configurationName: "Schedule",
                                                   at: inbox.appendingPathComponent(name), options: [.readOnly: true])
            }
        }

        struct Start { var ready: Double; var rss: Double; var count: Int }
        var round = 0
        let starts = try rounds(context.rounds, key: \.ready) { () throws -> Start in
            round += 1
            let folder = context.root.appendingPathComponent("round-\(round)")
            let daemon = try DaemonProcess(binary: context.binary, root: folder, inbox: inbox)
            defer { daemon.stop() }
            let ready = try daemon.waitUntilReady(timeout: 120)
            let rss = daemon.residentMegabytes() ?? .nan
            let client = try UnixLineClient(path: daemon.socketPath)
            let count = try client.request(#"{"id":1,"op":"count","entity":"Session"}"#)["count"] as? Int ?? -1
            say(String(format: "  round %d: READY=1 after %.3f s, VmRSS %.1f MB, %d sessions served", round, ready,
                       rss, count))
            return Start(ready: ready, rss: rss, count: count)
        }
        let served = Set(starts.map(\.count))
        let note = "\(files) binary files of 20 sessions (\(String(format: "%.1f", Double(bytes) / 1e6)) MB), "
            + "sessions served: \(served.sorted().map(String.init).joined(separator: ", "))"
        var startRow = ResultRow(workload: "daemon start-up to READY=1, \(files) files",
                                 ours: Figure(samples: starts.map(\.ready), unit: "s"), anchor: anchor,
                                 target: .atMost(5), note: note + "; anchor: in-process addPersistentStore of every file")
        if served != [files * 20] { startRow.pass = false }
        return [
            startRow,
            ResultRow(workload: "daemon VmRSS after READY=1, \(files) stores",
                      ours: Figure(samples: starts.map(\.rss), unit: "MB"), target: .atMost(300), note: note),
        ]
    }

    /// The FOSDEM 2021 frab file renamed into the inbox: time until `count` of Session grows.
    static func droppedFile(_ context: Context) throws -> [ResultRow] {
        let workload = "daemon: dropped FOSDEM 2021 frab file queryable after rename"
        guard let source = SharedSchedules.url(SharedSchedules.fosdem2021) else {
            let reason = "\(SharedSchedules.folder.path)/\(SharedSchedules.fosdem2021) is absent"
            say("  skipped: \(reason)")
            return [ResultRow.skipped(workload, target: .atMost(0.1), unit: "s", reason: reason)]
        }
        let inbox = context.root.appendingPathComponent("inbox")
        try writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 3, prefix: "base")
        // The anchor: parsing the same file in-process.
        ScheduleFileStore.registerTypes()
        let anchor = try Figure.timing(Figure.Runs.standard(quick: context.quick)) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            try coordinator.addPersistentStore(type: .frabXML, configurationName: "Schedule", at: source,
                                               options: [.readOnly: true])
        }
        let daemon = try DaemonProcess(binary: context.binary, root: context.root, inbox: inbox)
        defer { daemon.stop() }
        _ = try daemon.waitUntilReady(timeout: 60)
        let client = try UnixLineClient(path: daemon.socketPath)
        let countLine = Array((#"{"id":1,"op":"count","entity":"Session"}"# + "\n").utf8)
        func count() throws -> Int {
            let answer = try client.roundTrip(countLine)
            return (try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])?["count"] as? Int ?? -1
        }
        var added: [Int] = []
        var round = 0
        let latencies = try rounds(context.quick ? Figure.Runs(minimum: 3, maximum: 3)
                                                 : Figure.Runs(minimum: 5, maximum: 7), key: { $0 }) {
            () throws -> Double in
            let before = try count()
            let staging = context.root.appendingPathComponent("fosdem-\(round).staging")
            try? FileManager.default.removeItem(at: staging)
            // Each copy is a conference of its own (an acronym per round): copies of one conference are releases
            // of it, and the daemon serves only the newest, so the session count would not grow.
            let original = try String(contentsOf: source, encoding: .utf8)
            let renamed = original.replacingOccurrences(
                of: "<conference>", with: "<conference><acronym>bench-\(round)</acronym>",
                options: [], range: original.range(of: "<conference>"))
            try Data(renamed.utf8).write(to: staging)
            let target = inbox.appendingPathComponent("fosdem-2021-\(round).xml")
            round += 1
            let start = DispatchTime.now().uptimeNanoseconds
            guard rename(staging.path, target.path) == 0 else { throw BenchError("rename failed: \(errno)") }
            var now = try count()
            while now <= before {
                if DispatchTime.now().uptimeNanoseconds - start > 10_000_000_000 {
                    throw BenchError("the dropped file was not queryable within 10 s")
                }
                usleep(200)
                now = try count()
            }
            let latency = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            added.append(now - before)
            Thread.sleep(forTimeInterval: 0.2)
            return latency
        }
        return [ResultRow(workload: workload, ours: Figure(samples: latencies, unit: "s"), anchor: anchor,
                          target: .atMost(0.1),
                          note: "1.66 MB, 773 sessions; anchor: in-process frab load of the same file; sessions "
                            + "added per drop: \(Set(added).sorted())")]
    }

    // MARK: Data

    /// Writes `count` binary stores of the schedule model (configuration "Schedule"), each one conference with rooms
    /// and sessions (start/end/title/room), from a fixed seed.
    static func writeBinaryStores(in folder: URL, count: Int, sessionsPerStore: Int, roomsPerStore: Int,
                                  seed: UInt64, prefix: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let model = ScheduleModel.make()
        var generator = SplitMix(seed: seed)
        let base = Date(timeIntervalSince1970: 1_795_305_600)  // 2026-11-22T00:00:00Z
        for storeIndex in 0..<count {
            let url = folder.appendingPathComponent(String(format: "%@-%04d.binary", prefix, storeIndex))
            try? FileManager.default.removeItem(at: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, configurationName: "Schedule", at: url, options: [:])
            let context = ManagedObjectContext(coordinator: coordinator)
            context.isUndoRegistrationEnabled = false
            let acronym = "\(prefix)\(storeIndex)"
            let conference = context.insertNewObject(forEntityName: "Conference")
            conference.setValue(acronym, forKey: "acronym")
            conference.setValue("Generated conference \(storeIndex)", forKey: "title")
            conference.setValue("UTC", forKey: "timeZone")
            conference.setValue(base, forKey: "start")
            conference.setValue(base.addingTimeInterval(7 * 86_400), forKey: "end")
            let rooms = (0..<roomsPerStore).map { index -> ManagedObject in
                let room = context.insertNewObject(forEntityName: "Room")
                room.setValue("Room \(index)", forKey: "name")
                return room
            }
            for sessionIndex in 0..<sessionsPerStore {
                let session = context.insertNewObject(forEntityName: "Session")
                let start = base.addingTimeInterval(Double(generator.next() % (7 * 24 * 60)) * 60)
                session.setValue("\(acronym)-\(sessionIndex)", forKey: "guid")
                session.setValue("Session \(generator.next() % 100_000) of \(acronym)", forKey: "title")
                session.setValue(start, forKey: "start")
                session.setValue(start.addingTimeInterval(Double(15 + generator.next() % 4 * 15) * 60), forKey: "end")
                session.setValue(conference, forKey: "conference")
                session.setValue(rooms[Int(generator.next() % UInt64(rooms.count))], forKey: "room")
            }
            try context.save()
        }
    }
}
