import BenchmarkSupport
import Foundation

/// Issue 26's two scale rows, not a bench-all step (their inputs take minutes to write): 10,000 small schedule files
/// to READY=1 (≤ 5 s) and the daemon's VmRSS then (≤ 1 GB); and a generated frab XML file of a million sessions
/// renamed into a running daemon's inbox, until `count` shows them (≤ 3 s), with the daemon's VmRSS then (the file
/// is removed again before the next round).
/// `scripts/growth-table.sh` runs it after the growth table.
///
///   AlmanacBenchmarks scale [--files 10000] [--frab-sessions 1000000] --almanacd PATH [--json PATH]
enum ScaleRows {
    static func run(arguments: Arguments, binary: String) -> [ResultRow] {
        let files = Int(arguments.value("--files") ?? "") ?? 10_000
        let frabSessions = Int(arguments.value("--frab-sessions") ?? "") ?? 1_000_000
        let root = URL(fileURLWithPath: "/tmp/almanac-scale-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        say("almanacd: \(binary); load average before: \(ResultFile.loadAverage)")
        var rows: [ResultRow] = []
        let startup = "daemon start-up to READY=1, \(files) small files"
        do {
            rows += try manyFiles(files, binary: binary, root: root.appendingPathComponent("files"))
        } catch {
            say("  \(startup): \(error)")
            rows.append(.failed(startup, target: .atMost(5), unit: "s", error: error))
        }
        let drop = "daemon: a generated frab XML file of \(frabSessions) sessions queryable after rename"
        do {
            rows.append(try bigFrabFile(frabSessions, binary: binary, root: root.appendingPathComponent("frab")))
        } catch {
            say("  \(drop): \(error)")
            rows.append(.failed(drop, target: .atMost(3), unit: "s", error: error))
        }
        say("load average after: \(ResultFile.loadAverage)")
        return rows
    }

    /// `count` binary stores of 20 sessions: time from process start to READY=1 and VmRSS then, over 3 starts with a
    /// fresh state folder each.
    static func manyFiles(_ count: Int, binary: String, root: URL) throws -> [ResultRow] {
        let inbox = root.appendingPathComponent("inbox")
        let writing = ContinuousClock.now
        try DaemonWorkloads.writeBinaryStores(in: inbox, count: count, sessionsPerStore: 20, roomsPerStore: 3,
                                              seed: 7, prefix: "scale")
        say("  \(count) binary stores of 20 sessions written in \(ContinuousClock.now - writing)")
        var ready: [Double] = []
        var rss: [Double] = []
        var served: Set<Int> = []
        for round in 1...3 {
            let folder = root.appendingPathComponent("round-\(round)")
            let daemon = try DaemonProcess(binary: binary, root: folder, inbox: inbox)
            defer { daemon.stop() }
            ready.append(try daemon.waitUntilReady(timeout: 600))
            rss.append(daemon.residentMegabytes() ?? .nan)
            let client = try UnixLineClient(path: daemon.socketPath)
            served.insert(try client.request(#"{"id":1,"op":"count","entity":"Session"}"#)["count"] as? Int ?? -1)
            say(String(format: "  round %d: READY=1 after %.3f s, VmRSS %.1f MB", round, ready.last!, rss.last!))
        }
        let note = "\(count) binary files of 20 sessions; sessions served: "
            + served.sorted().map(String.init).joined(separator: ", ")
        var startRow = ResultRow(workload: "daemon start-up to READY=1, \(count) small files",
                                 ours: Figure(samples: ready, unit: "s"), target: .atMost(5), note: note)
        if served != [count * 20] { startRow.pass = false }
        return [
            startRow,
            ResultRow(workload: "daemon VmRSS after READY=1, \(count) small files",
                      ours: Figure(samples: rss, unit: "MB"), target: .atMost(1024), note: note),
        ]
    }

    /// Writes a frab XML schedule of `sessions` events (100 rooms a day, 10-minute slots from 00:00, as many days
    /// as it takes) to `url`, in chunks; returns its size in bytes.
    static func writeFrabFile(sessions: Int, acronym: String, to url: URL) throws -> Int {
        let perRoomDay = 100
        let rooms = 100
        let days = (sessions + rooms * perRoomDay - 1) / (rooms * perRoomDay)
        let first = Date(timeIntervalSince1970: 1_795_305_600)  // 2026-11-22
        let dayFormatter = DateFormatter()
        dayFormatter.locale = Locale(identifier: "en_US_POSIX")
        dayFormatter.timeZone = TimeZone(identifier: "UTC")
        dayFormatter.dateFormat = "yyyy-MM-dd"
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = """
            <?xml version="1.0" encoding="UTF-8"?>
            <schedule>
              <version>scale</version>
              <conference><acronym>\(acronym)</acronym><title>Generated, \(sessions) sessions</title>\
            <start>\(dayFormatter.string(from: first))</start>\
            <end>\(dayFormatter.string(from: first.addingTimeInterval(Double(days - 1) * 86_400)))</end>\
            <days>\(days)</days><time_zone_name>Europe/Brussels</time_zone_name></conference>

            """
        var written = 0
        var id = 0
        for day in 0..<days where id < sessions {
            let date = dayFormatter.string(from: first.addingTimeInterval(Double(day) * 86_400))
            chunk += "  <day index=\"\(day + 1)\" date=\"\(date)\">\n"
            for room in 0..<rooms where id < sessions {
                chunk += "    <room name=\"Room \(room)\">\n"
                for slot in 0..<perRoomDay where id < sessions {
                    id += 1
                    let minutes = slot * 10
                    chunk += "      <event id=\"\(id)\" guid=\"00000000-0000-4000-8000-\(String(format: "%012d", id))\">"
                        + String(format: "<start>%02d:%02d</start>", minutes / 60, minutes % 60)
                        + "<duration>00:10</duration><room>Room \(room)</room><slug>s\(id)</slug>"
                        + "<title>Session \(id)</title><track>Track \(id % 40)</track><type>lecture</type>"
                        + "<persons><person id=\"\(id % 5_000)\">Speaker \(id % 5_000)</person></persons></event>\n"
                }
                chunk += "    </room>\n"
                if chunk.utf8.count > 1 << 20 {
                    handle.write(Data(chunk.utf8))
                    written += chunk.utf8.count
                    chunk = ""
                }
            }
            chunk += "  </day>\n"
        }
        chunk += "</schedule>\n"
        handle.write(Data(chunk.utf8))
        return written + chunk.utf8.count
    }

    /// A daemon serving one small store; the generated file is renamed into its inbox, and `count` is asked until
    /// it has grown by the file's sessions. Three rounds, each with a file of its own conference.
    static func bigFrabFile(_ sessions: Int, binary: String, root: URL) throws -> ResultRow {
        let workload = "daemon: a generated frab XML file of \(sessions) sessions queryable after rename"
        let inbox = root.appendingPathComponent("inbox")
        try DaemonWorkloads.writeBinaryStores(in: inbox, count: 1, sessionsPerStore: 10, roomsPerStore: 2, seed: 5,
                                              prefix: "base")
        // The file is far above the default limit on a file's size (64 MB): raise it.
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data(#"{"maximumFileSize": 4294967296}"#.utf8).write(to: state.appendingPathComponent("almanacd.json"))
        let daemon = try DaemonProcess(binary: binary, root: root, inbox: inbox)
        defer { daemon.stop() }
        _ = try daemon.waitUntilReady(timeout: 120)
        let client = try UnixLineClient(path: daemon.socketPath)
        func count() throws -> Int {
            try client.request(#"{"id":1,"op":"count","entity":"Session"}"#)["count"] as? Int ?? -1
        }
        var latencies: [Double] = []
        var rss: [Double] = []
        var bytes = 0
        for round in 1...3 {
            let staging = root.appendingPathComponent("big-\(round).staging")
            let writing = ContinuousClock.now
            bytes = try writeFrabFile(sessions: sessions, acronym: "scale\(round)", to: staging)
            say(String(format: "  round %d: %.0f MB written in ", round, Double(bytes) / 1e6)
                + "\(ContinuousClock.now - writing)")
            let before = try count()
            let start = DispatchTime.now().uptimeNanoseconds
            guard rename(staging.path, inbox.appendingPathComponent("big-\(round).xml").path) == 0 else {
                throw BenchError("rename failed: \(errno)")
            }
            var now = before
            while now < before + sessions {
                guard DispatchTime.now().uptimeNanoseconds - start < 300_000_000_000 else {
                    throw BenchError("the file's sessions were not all queryable within 300 s (\(now - before) were)")
                }
                usleep(2_000)
                now = try count()
            }
            let latency = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            latencies.append(latency)
            rss.append(daemon.residentMegabytes() ?? .nan)
            say(String(format: "  round %d: %d sessions queryable %.3f s after the rename, VmRSS %.0f MB", round,
                       now - before, latency, rss.last!))
            // Removed again, so that each round starts from the small store alone.
            unlink(inbox.appendingPathComponent("big-\(round).xml").path)
            let removing = DispatchTime.now().uptimeNanoseconds
            while try count() != before {
                guard DispatchTime.now().uptimeNanoseconds - removing < 120_000_000_000 else {
                    throw BenchError("the removed file's sessions were still served after 120 s")
                }
                usleep(10_000)
            }
        }
        return ResultRow(workload: workload, ours: Figure(samples: latencies, unit: "s"), target: .atMost(3),
                         note: String(format: "%.0f MB each, 100 rooms × 100 sessions a day; ", Double(bytes) / 1e6)
                            + "VmRSS with it and a small store: "
                            + rss.map { String(format: "%.0f MB", $0) }.joined(separator: ", "))
    }
}
