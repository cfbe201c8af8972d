import Foundation
import ObjectGraph
import Schedules

#if canImport(Glibc)
import Glibc
#endif

/// One figure of a daemon workload, with its anchor (measured in the same run) and target.
struct DaemonFigure: Codable, Sendable {
    var workload: String
    var figure: String
    var value: Double
    var unit: String
    var anchor: String
    var target: String
    var pass: Bool?
    var note: String?
}

/// Workloads of `almanacd` over its Unix socket: fetch latency and throughput with 100k sessions in 100 stores,
/// ping against redis-server, start-up with 1,000 files, and a dropped FOSDEM schedule's time to queryable.
enum DaemonWorkloads {
    struct Context: Sendable {
        var quick: Bool
        var binary: String
        var root: URL
    }

    static let all: [(String, @Sendable (Context) throws -> [DaemonFigure])] = [
        ("fetch", fetchLatency), ("ping", pingVersusRedis), ("startup", startup), ("drop", droppedFile),
    ]

    /// Runs the workloads whose name contains `filter`; prints a table and returns every figure.
    static func run(quick: Bool, filter: String?, binary: String?) -> [DaemonFigure] {
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
        let load = loadAverage()
        say("almanacd: \(binary); load average before: \(load)")
        say(["figure", "ours", "anchor", "target", "result"].joined(separator: " | "))
        say("--- | --- | --- | --- | ---")
        var figures: [DaemonFigure] = []
        for (name, workload) in all where filter.map({ name.localizedCaseInsensitiveContains($0) }) ?? true {
            let folder = root.appendingPathComponent(name)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            do {
                let results = try workload(Context(quick: quick, binary: binary, root: folder))
                for figure in results { printFigure(figure) }
                figures += results
            } catch {
                say("\(name) | error: \(error)")
                figures.append(DaemonFigure(workload: name, figure: "error", value: .nan, unit: "", anchor: "",
                                            target: "", pass: false, note: "\(error)"))
            }
            try? FileManager.default.removeItem(at: folder)
        }
        say("load average after: \(loadAverage())")
        return figures
    }

    static func printFigure(_ figure: DaemonFigure) {
        let value: String
        switch figure.unit {
        case "ms": value = String(format: "%.3f ms", figure.value)
        case "s": value = String(format: "%.3f s", figure.value)
        case "/s": value = String(format: "%.0f/s", figure.value)
        case "MB": value = String(format: "%.1f MB", figure.value)
        default: value = String(format: "%.3f %@", figure.value, figure.unit)
        }
        let result = figure.pass.map { $0 ? "pass" : "FAIL" } ?? "—"
        say([figure.figure, value, figure.anchor, figure.target, result].joined(separator: " | ")
                + (figure.note.map { "  (\($0))" } ?? ""))
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
    }

    // MARK: Workloads

    static let fetchLine = #"{"id":1,"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}"#

    /// 100 binary stores with 100k sessions in total: sorted limit-50 fetch latency (1 client) and throughput
    /// (8 clients), beside the same sort+limit over an in-process array of 100k structs.
    static func fetchLatency(_ context: Context) throws -> [DaemonFigure] {
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
        say(String(format: "  almanacd (pid %d) ready after %.2f s serving %d sessions (RSS %.0f MB)", daemon.process.processIdentifier, ready, count,
                     daemon.residentMegabytes() ?? .nan))
        guard count >= total else { throw BenchError("the daemon serves \(count) sessions, expected \(total)") }
        let sample = try client.request(fetchLine)
        let objects = sample["objects"] as? [Any] ?? []
        guard objects.count == 50 else { throw BenchError("the fetch returned \(objects.count) objects: \(sample)") }

        // The anchor: the same sort+limit over an in-process array.
        struct Row { var start: Double; var end: Double; var title: String; var room: String }
        var generator = SplitMix(seed: 2026)
        let rows = (0..<total).map { index in
            let start = Double(generator.next() % (7 * 24 * 60)) * 60
            return Row(start: start, end: start + 1800, title: "Session \(index)", room: "Room \(index % 10)")
        }
        let anchorRuns = context.quick ? 5 : 20
        let anchor = Measurement.of(minimumRuns: min(5, anchorRuns), maximumRuns: anchorRuns) {
            let top = Array(rows.sorted { $0.start < $1.start }.prefix(50))
            precondition(top.count == 50)
        }
        let topK = Measurement.of(minimumRuns: min(5, anchorRuns), maximumRuns: anchorRuns) {
            // Top-50 selection without a full sort (what an index or a bounded heap gives).
            var best: [Row] = []
            best.reserveCapacity(51)
            for row in rows where best.count < 50 || row.start < best[49].start {
                let index = best.firstIndex { $0.start > row.start } ?? best.endIndex
                best.insert(row, at: index)
                if best.count > 50 { best.removeLast() }
            }
            precondition(best.count == 50)
        }
        let anchorText = String(format: "array sort+prefix(50) %.3f ms, top-50 scan %.3f ms", anchor.median * 1000,
                                topK.median * 1000)

        let single = LoadGenerator(socketPath: daemon.socketPath, clients: 1,
                                   mix: LoadGenerator.only("fetch", fetchLine),
                                   requestsPerClient: context.quick ? 1_000 : 5_000, seconds: context.quick ? 5 : 20,
                                   warmUp: 200).run()
        say("  1 client:  " + single.summary)
        let eight = LoadGenerator(socketPath: daemon.socketPath, clients: 8,
                                  mix: LoadGenerator.only("fetch", fetchLine), requestsPerClient: 200_000,
                                  seconds: context.quick ? 3 : 10, warmUp: 20).run()
        say("  8 clients: " + eight.summary)
        let mixed = LoadGenerator(socketPath: daemon.socketPath, clients: 8, mix: LoadGenerator.standardMix(),
                                  requestsPerClient: 100_000, seconds: context.quick ? 2 : 5, warmUp: 5).run()
        say("  8 clients, standard mix: " + mixed.summary)
        let errors = single.errorsByCode.values.reduce(0, +) + eight.errorsByCode.values.reduce(0, +)
        let note = "\(stores) stores, \(total) sessions" + (errors > 0 ? ", \(errors) errors" : "")
        return [
            DaemonFigure(workload: "fetch", figure: "sorted limit-50 fetch p50, 1 client", value: single.p50 * 1000,
                         unit: "ms", anchor: anchorText, target: "≤ 0.5 ms", pass: single.p50 <= 0.0005 && errors == 0,
                         note: note),
            DaemonFigure(workload: "fetch", figure: "sorted limit-50 fetch p99, 1 client", value: single.p99 * 1000,
                         unit: "ms", anchor: anchorText, target: "≤ 2 ms", pass: single.p99 <= 0.002 && errors == 0,
                         note: note),
            DaemonFigure(workload: "fetch", figure: "sorted limit-50 fetches, 8 clients", value: eight.throughput,
                         unit: "/s", anchor: String(format: "array sort+prefix(50) %.0f/s (1 thread)",
                                                    1 / anchor.median),
                         target: "≥ 10000/s", pass: eight.throughput >= 10_000 && errors == 0,
                         note: String(format: "p50 %.3f ms, p99 %.3f ms", eight.p50 * 1000, eight.p99 * 1000)),
            DaemonFigure(workload: "fetch", figure: "standard mix (70% fetch, 10% template, 15% count, 5% insert), "
                            + "8 clients", value: mixed.throughput, unit: "/s", anchor: "—", target: "(no target)",
                         pass: nil, note: String(format: "p50 %.3f ms, p99 %.3f ms, errors %d", mixed.p50 * 1000,
                                                 mixed.p99 * 1000, mixed.errorsByCode.values.reduce(0, +))),
        ]
    }

    /// `ping` over the daemon's socket against redis-server's PING over a Unix socket, 1 and 8 clients.
    static func pingVersusRedis(_ context: Context) throws -> [DaemonFigure] {
        let total = context.quick ? 20_000 : 100_000
        guard let redisServer = which("redis-server"), let redisBenchmark = which("redis-benchmark") else {
            throw BenchError("redis-server or redis-benchmark is missing (apt-get install -y redis-server)")
        }
        let redisSocket = context.root.appendingPathComponent("redis.sock").path
        let redis = Process()
        redis.executableURL = URL(fileURLWithPath: redisServer)
        redis.arguments = ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "no",
                           "--dir", context.root.path, "--logfile", context.root.appendingPathComponent("redis.log").path]
        try redis.run()
        defer { terminate(redis) }
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? UnixLineClient(path: redisSocket)) == nil {
            guard ContinuousClock.now < deadline, redis.isRunning else { throw BenchError("redis-server did not start") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        var redisRates: [Int: (Double, String)] = [:]
        for clients in [1, 8] {
            let output = try runCapturing(redisBenchmark, ["-s", redisSocket, "-t", "ping", "-n", "\(total)",
                                                           "-c", "\(clients)", "-q"], timeout: 120)
            // "PING_INLINE: 52631.58 requests per second, p50=0.015 msec" (and PING_MBULK); take the faster.
            var best = 0.0
            for line in output.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                let parts = line.split(separator: " ")
                if let index = parts.firstIndex(of: "requests"), index > 0, let rate = Double(parts[index - 1]) {
                    best = max(best, rate)
                }
            }
            let summary = output.split(whereSeparator: { $0 == "\r" || $0 == "\n" })
                .filter { $0.contains("requests per second") }.map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: "; ")
            say("  redis-benchmark -c \(clients): \(summary)")
            redisRates[clients] = (best, summary)
        }
        terminate(redis)

        let inbox = context.root.appendingPathComponent("inbox")
        try writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 1, prefix: "ping")
        let daemon = try DaemonProcess(binary: context.binary, root: context.root, inbox: inbox)
        defer { daemon.stop() }
        _ = try daemon.waitUntilReady(timeout: 60)
        var figures: [DaemonFigure] = []
        for clients in [1, 8] {
            let report = LoadGenerator(socketPath: daemon.socketPath, clients: clients,
                                       mix: LoadGenerator.only("ping", #"{"id":1,"op":"ping"}"#),
                                       requestsPerClient: total / clients, seconds: 60, warmUp: 100).run()
            say("  almanacd ping: " + report.summary)
            let (redisRate, _) = redisRates[clients] ?? (.nan, "")
            let ratio = report.throughput / redisRate
            let errors = report.errorsByCode.values.reduce(0, +)
            figures.append(DaemonFigure(
                workload: "ping", figure: "ping rate, \(clients) client\(clients == 1 ? "" : "s")",
                value: report.throughput, unit: "/s", anchor: String(format: "redis PING %.0f/s", redisRate),
                target: "≥ 50% of redis", pass: ratio >= 0.5 && errors == 0,
                note: String(format: "%.0f%% of redis, p50 %.3f ms, %d requests", ratio * 100, report.p50 * 1000,
                             report.requests) + (errors > 0 ? ", \(errors) errors" : "")))
        }
        return figures
    }

    /// 1,000 small binary schedule files: time from process start to READY=1, and VmRSS after it.
    static func startup(_ context: Context) throws -> [DaemonFigure] {
        let inbox = context.root.appendingPathComponent("inbox")
        let files = context.quick ? 200 : 1_000
        try writeBinaryStores(in: inbox, count: files, sessionsPerStore: 20, roomsPerStore: 3, seed: 99, prefix: "small")
        let bytes = (try? FileManager.default.contentsOfDirectory(atPath: inbox.path))?.reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: inbox.appendingPathComponent(name).path))?[.size]
                    as? Int ?? 0)
        } ?? 0
        say(String(format: "  wrote %d binary stores of 20 sessions (%.1f MB in total)", files, Double(bytes) / 1e6))
        // The anchor: the same files loaded in-process into one coordinator.
        let anchorStart = ContinuousClock.now
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
        for name in try FileManager.default.contentsOfDirectory(atPath: inbox.path).sorted() {
            try coordinator.addPersistentStore(type: .binary, configurationName: "Schedule",
                                               at: inbox.appendingPathComponent(name), options: [.readOnly: true])
        }
        let anchorSeconds = seconds(ContinuousClock.now - anchorStart)

        let daemon = try DaemonProcess(binary: context.binary, root: context.root, inbox: inbox)
        defer { daemon.stop() }
        let ready = try daemon.waitUntilReady(timeout: 120)
        let rss = daemon.residentMegabytes() ?? .nan
        let client = try UnixLineClient(path: daemon.socketPath)
        let count = try client.request(#"{"id":1,"op":"count","entity":"Session"}"#)["count"] as? Int ?? -1
        Thread.sleep(forTimeInterval: 1)
        let rssLater = daemon.residentMegabytes() ?? .nan
        let note = "\(files) files, \(count) sessions served"
        return [
            DaemonFigure(workload: "startup", figure: "start-up to READY=1, \(files) files", value: ready, unit: "s",
                         anchor: String(format: "in-process addPersistentStore ×%d %.3f s", files, anchorSeconds),
                         target: "≤ 5 s", pass: ready <= 5 && count == files * 20, note: note),
            DaemonFigure(workload: "startup", figure: "VmRSS after READY=1, \(files) files", value: rss, unit: "MB",
                         anchor: "—", target: "≤ 300 MB", pass: rss <= 300,
                         note: String(format: "%.1f MB one second later", rssLater)),
        ]
    }

    /// The FOSDEM 2021 frab file renamed into the inbox: time until `count` of Session grows.
    static func droppedFile(_ context: Context) throws -> [DaemonFigure] {
        let source = URL(fileURLWithPath: "/work/shared/schedules/fosdem-2021-schedule.xml")
        guard FileManager.default.fileExists(atPath: source.path) else {
            say("  skipped: \(source.path) is absent")
            return [DaemonFigure(workload: "drop", figure: "dropped FOSDEM file queryable", value: .nan, unit: "ms",
                                 anchor: "—", target: "≤ 100 ms", pass: nil, note: "skipped: \(source.path) absent")]
        }
        let inbox = context.root.appendingPathComponent("inbox")
        try writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 3, prefix: "base")
        // The anchor: parsing the same file in-process.
        let anchor = try Measurement.of(minimumRuns: 3, maximumRuns: 5) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            ScheduleFileStore.registerTypes()
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
        var latencies: [Double] = []
        var added: [Int] = []
        for round in 0..<(context.quick ? 3 : 5) {
            let before = try count()
            let staging = context.root.appendingPathComponent("fosdem-\(round).staging")
            try? FileManager.default.removeItem(at: staging)
            try FileManager.default.copyItem(at: source, to: staging)
            let target = inbox.appendingPathComponent("fosdem-2021-\(round).xml")
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
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            added.append(now - before)
            Thread.sleep(forTimeInterval: 0.2)
        }
        let sorted = latencies.sorted()
        let median = sorted[sorted.count / 2]
        return [DaemonFigure(
            workload: "drop", figure: "dropped FOSDEM 2021 (1.66 MB) queryable after rename, median of \(sorted.count)",
            value: median * 1000, unit: "ms", anchor: String(format: "in-process frab parse %.1f ms",
                                                            anchor.median * 1000),
            target: "≤ 100 ms", pass: median <= 0.1,
            note: "each: " + latencies.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ")
                + " ms; sessions added per drop: \(Set(added).sorted())")]
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

    // MARK: Processes

    static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            + ["/usr/sbin", "/usr/local/bin", "/usr/bin"]
        {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a command to completion (killed after `timeout`), returning its standard output.
    static func runCapturing(_ executable: String, _ arguments: [String], timeout: Double) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bench-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { terminate(process) }
        try? handle.close()
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then SIGKILL after 5 s; waits for the process.
    static func terminate(_ process: Process) {
        guard process.processIdentifier > 0 else { return }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// An `almanacd` started on an inbox with a fake `NOTIFY_SOCKET` bound here, so READY=1 is seen when it is sent.
final class DaemonProcess {
    let process = Process()
    let socketPath: String
    let notifyPath: String
    let notifyFD: Int32
    let logURL: URL
    private var startNanoseconds: UInt64 = 0
    private var stopped = false

    init(binary: String, root: URL, inbox: URL) throws {
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        socketPath = root.appendingPathComponent("almanac.sock").path
        notifyPath = root.appendingPathComponent("notify.sock").path
        logURL = root.appendingPathComponent("almanacd.log")
        unlink(notifyPath)
        notifyFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard notifyFD >= 0 else { throw BenchError("cannot create the notify socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(notifyPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(notifyFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(notifyFD)
            throw BenchError("cannot bind \(notifyPath): \(String(cString: strerror(errno)))")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--watch", inbox.path, "--state", state.path, "--socket", socketPath]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        environment.removeValue(forKey: "WATCHDOG_USEC")
        environment.removeValue(forKey: "LISTEN_FDS")
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        startNanoseconds = DispatchTime.now().uptimeNanoseconds
        do {
            try process.run()
        } catch {
            close(notifyFD)
            throw error
        }
        try? log.close()
    }

    deinit { stop() }

    /// Waits for READY=1; returns the seconds since the process was started.
    func waitUntilReady(timeout: Double) throws -> Double {
        let deadline = startNanoseconds + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw BenchError("no READY=1 within \(timeout) s; log: \(logTail())") }
            guard process.isRunning else {
                throw BenchError("almanacd exited (\(process.terminationStatus)); log: \(logTail())")
            }
            var descriptor = pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(200, (deadline - now) / 1_000_000 + 1)))
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress!, $0.count, 0) }
                let received = DispatchTime.now().uptimeNanoseconds
                if count > 0 {
                    let message = String(decoding: buffer[0..<count], as: UTF8.self)
                    if message.split(separator: "\n").contains("READY=1") {
                        return Double(received - startNanoseconds) / 1e9
                    }
                }
            }
        }
    }

    /// VmRSS from /proc/PID/status, in MB (10^6 bytes).
    func residentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024 / 1e6
    }

    func logTail() -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return String(text.suffix(1500))
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        DaemonWorkloads.terminate(process)
        close(notifyFD)
        unlink(notifyPath)
    }
}

/// Prints a line and flushes, so progress shows when the output goes to a file or a pipe.
func say(_ line: String) {
    print(line)
    fflush(nil)
}
