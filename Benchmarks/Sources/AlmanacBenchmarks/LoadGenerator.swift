import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the daemon's Unix socket: one request line out, one answer line back.
final class UnixLineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    enum Failure: Error, CustomStringConvertible {
        case connect(String, Int32), io(String, Int32), closed, timeout
        var description: String {
            switch self {
            case .connect(let path, let code): "cannot connect to \(path): \(String(cString: strerror(code)))"
            case .io(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .closed: "the server closed the connection"
            case .timeout: "no answer in time"
            }
        }
    }

    /// Connects; `receiveTimeout` bounds every read.
    init(path: String, receiveTimeout: Double = 30) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.io("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw Failure.connect(path, ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure.connect(path, code)
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        buffer.reserveCapacity(1 << 16)
    }

    deinit { close(fd) }

    /// Sends one line (a newline is appended).
    func send(_ line: [UInt8]) throws {
        var offset = 0
        while offset < line.count {
            let written = line.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure.io("send", errno)
            }
            offset += written
        }
    }

    /// Reads one answer line (without its newline).
    func readLine() throws -> ArraySlice<UInt8> {
        var scanFrom = start
        while true {
            if let newline = buffer[scanFrom...].firstIndex(of: 10) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            scanFrom = buffer.count
            if start > 0 && start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                scanFrom = 0
            } else if start > 1 << 20 {
                buffer.removeFirst(start)
                scanFrom -= start
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count == 0 { throw Failure.closed }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timeout }
                throw Failure.io("recv", errno)
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Sends a request and returns its answer.
    func roundTrip(_ line: [UInt8]) throws -> ArraySlice<UInt8> {
        try send(line)
        return try readLine()
    }

    /// Sends a request and decodes its answer as a JSON object.
    func request(_ json: String) throws -> [String: Any] {
        let answer = try roundTrip(Array((json + "\n").utf8))
        return (try? JSONSerialization.jsonObject(with: Data(answer))) as? [String: Any] ?? [:]
    }
}

/// The error code of an answer, or `nil` when it is `ok`. Cheap for the common `ok` case.
func answerErrorCode(_ line: ArraySlice<UInt8>) -> String? {
    let okTrue = Array(#""ok":true"#.utf8)
    let okFalse = Array(#""ok":false"#.utf8)
    func contains(_ needle: [UInt8]) -> Bool {
        guard line.count >= needle.count else { return false }
        // The envelope keys come first or last; look at both ends before scanning the whole line.
        let head = line.prefix(256), tail = line.suffix(256)
        for window in [head, tail, line] {
            var index = window.startIndex
            while index + needle.count <= window.endIndex {
                if window[index] == needle[0] && window[index..<index + needle.count].elementsEqual(needle) {
                    return true
                }
                index += 1
            }
        }
        return false
    }
    if contains(okFalse) {
        let json = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
        return ((json?["error"] as? [String: Any])?["code"] as? String) ?? "unknown"
    }
    if contains(okTrue) { return nil }
    return "unreadable_answer"
}

/// Percentile of sorted seconds.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

/// N concurrent clients, each on its own thread and connection, sending a weighted mix of requests for a bounded
/// count and time, timing each request.
struct LoadGenerator: Sendable {
    /// One kind of request and its weight in the mix.
    struct RequestKind: Sendable {
        var name: String
        var weight: Int
        /// The request line for a client and sequence number (no newline).
        var line: @Sendable (_ client: Int, _ sequence: Int) -> String
    }

    struct Report: Codable, Sendable {
        var clients: Int
        var requests: Int
        var seconds: Double
        var throughput: Double
        var p50: Double
        var p90: Double
        var p99: Double
        var max: Double
        var errorsByCode: [String: Int]
        var requestsByKind: [String: Int]
        var p50ByKind: [String: Double]

        var summary: String {
            var text = String(format: "%d clients: %d requests in %.2f s = %.0f/s; p50 %.3f ms, p90 %.3f ms, "
                                + "p99 %.3f ms, max %.3f ms", clients, requests, seconds, throughput, p50 * 1000,
                              p90 * 1000, p99 * 1000, max * 1000)
            text += "; errors: " + (errorsByCode.isEmpty ? "none"
                : errorsByCode.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
            if requestsByKind.count > 1 {
                text += "\n  by kind: " + requestsByKind.keys.sorted().map {
                    String(format: "%@ %d (p50 %.3f ms)", $0, requestsByKind[$0]!, (p50ByKind[$0] ?? .nan) * 1000)
                }.joined(separator: ", ")
            }
            return text
        }
    }

    var socketPath: String
    var clients: Int
    var mix: [RequestKind]
    /// Requests per client at most.
    var requestsPerClient: Int
    /// Wall-clock bound of the whole run.
    var seconds: Double
    /// Untimed requests per client first.
    var warmUp: Int = 0

    /// The standard mix: sorted limit-50 fetches, a template, counts, Favorite inserts.
    static func standardMix(insertWeight: Int = 5) -> [RequestKind] {
        [
            RequestKind(name: "fetch", weight: 70) { _, n in
                #"{"id":\#(n),"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}"#
            },
            RequestKind(name: "template", weight: 10) { _, n in
                #"{"id":\#(n),"op":"template","name":"SessionsAt","variables":{"NOW":"2026-11-24T10:30:00Z"},"limit":50}"#
            },
            RequestKind(name: "count", weight: 15) { _, n in
                #"{"id":\#(n),"op":"count","entity":"Session"}"#
            },
            RequestKind(name: "insert", weight: insertWeight) { client, n in
                #"{"id":\#(n),"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"bench","sessionGUID":"load-\#(client)-\#(n)","createdAt":"2026-11-21T12:00:00Z","note":"load generator"}}"#
            },
        ].filter { $0.weight > 0 }
    }

    static func only(_ name: String, _ line: String) -> [RequestKind] {
        [RequestKind(name: name, weight: 1) { _, _ in line }]
    }

    private final class ClientResult: @unchecked Sendable {
        var latencies: [Double] = []
        var kinds: [Int] = []
        var errors: [String: Int] = [:]
    }

    func run() -> Report {
        let results = (0..<clients).map { _ in ClientResult() }
        let group = DispatchGroup()
        let totalWeight = mix.reduce(0) { $0 + $1.weight }
        // A fixed, interleaved schedule of kinds by weight, so every client sends the same proportions.
        var schedule: [Int] = []
        for (index, kind) in mix.enumerated() { schedule += Array(repeating: index, count: kind.weight) }
        var generator = BenchRandom(seed: 11)
        schedule.shuffle(using: &generator)
        let kinds = schedule
        let mix = self.mix, path = socketPath, perClient = requestsPerClient, warmUp = self.warmUp
        let barrier = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)
        let deadlineBox = DeadlineBox()
        for client in 0..<clients {
            group.enter()
            let result = results[client]
            let thread = Thread {
                defer { group.leave() }
                let connection: UnixLineClient
                do {
                    connection = try UnixLineClient(path: path, receiveTimeout: 10)
                    // Warm-up: at most `warmUp` requests and at most 2 s.
                    let warmUpEnd = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
                    for n in 0..<warmUp where DispatchTime.now().uptimeNanoseconds < warmUpEnd {
                        _ = try connection.roundTrip(Array((mix[kinds[n % kinds.count]].line(client, -n - 1) + "\n").utf8))
                    }
                } catch {
                    result.errors["connect: \(error)", default: 0] += 1
                    ready.signal()
                    barrier.wait()
                    return
                }
                ready.signal()
                barrier.wait()
                let deadline = deadlineBox.deadline
                result.latencies.reserveCapacity(min(perClient, 1_000_000))
                var n = 0
                while n < perClient {
                    if DispatchTime.now().uptimeNanoseconds >= deadline { break }
                    let kindIndex = kinds[(n + client * 7) % kinds.count]
                    let line = Array((mix[kindIndex].line(client, n) + "\n").utf8)
                    let begin = DispatchTime.now().uptimeNanoseconds
                    do {
                        let answer = try connection.roundTrip(line)
                        let end = DispatchTime.now().uptimeNanoseconds
                        result.latencies.append(Double(end - begin) / 1e9)
                        result.kinds.append(kindIndex)
                        if let code = answerErrorCode(answer) { result.errors[code, default: 0] += 1 }
                    } catch {
                        result.errors["transport: \(error)", default: 0] += 1
                        break
                    }
                    n += 1
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<clients { ready.wait() }
        let begin = DispatchTime.now().uptimeNanoseconds
        deadlineBox.deadline = begin + UInt64(seconds * 1e9)
        for _ in 0..<clients { barrier.signal() }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
        var all: [Double] = []
        var byKind: [Int: [Double]] = [:]
        var errors: [String: Int] = [:]
        for result in results {
            all += result.latencies
            for (latency, kind) in zip(result.latencies, result.kinds) { byKind[kind, default: []].append(latency) }
            errors.merge(result.errors, uniquingKeysWith: +)
        }
        all.sort()
        _ = totalWeight
        var counts: [String: Int] = [:], p50s: [String: Double] = [:]
        for (kind, latencies) in byKind {
            counts[mix[kind].name] = latencies.count
            p50s[mix[kind].name] = percentile(latencies.sorted(), 0.5)
        }
        return Report(clients: clients, requests: all.count, seconds: elapsed,
                      throughput: Double(all.count) / elapsed, p50: percentile(all, 0.5), p90: percentile(all, 0.9),
                      p99: percentile(all, 0.99), max: all.last ?? .nan, errorsByCode: errors,
                      requestsByKind: counts, p50ByKind: p50s)
    }

    private final class DeadlineBox: @unchecked Sendable {
        var deadline: UInt64 = .max  // written before the barrier is released, read after
    }

    /// `AlmanacBenchmarks load --socket PATH [--clients N] [--seconds S] [--requests N] [--mix fetch,template,count,insert|ping]`
    static func commandLine(_ arguments: [String]) -> Int32 {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex
                ? arguments[arguments.index(after: $0)] : nil }
        }
        guard let socket = value("--socket") else {
            print("usage: AlmanacBenchmarks load --socket PATH [--clients 32] [--seconds 60] [--requests N] "
                    + "[--warmup N] [--mix standard|ping|fetch|readonly] [--json FILE]")
            return 2
        }
        let clients = value("--clients").flatMap(Int.init) ?? 32
        let seconds = min(value("--seconds").flatMap(Double.init) ?? 60, 3600)
        let requests = value("--requests").flatMap(Int.init) ?? 10_000_000
        let mix: [RequestKind]
        switch value("--mix") ?? "standard" {
        case "ping": mix = only("ping", #"{"id":1,"op":"ping"}"#)
        case "fetch": mix = standardMix(insertWeight: 0).filter { $0.name == "fetch" }
        case "readonly": mix = standardMix(insertWeight: 0)
        default: mix = standardMix()
        }
        let generator = LoadGenerator(socketPath: socket, clients: clients, mix: mix, requestsPerClient: requests,
                                      seconds: seconds, warmUp: value("--warmup").flatMap(Int.init) ?? 10)
        let report = generator.run()
        print(report.summary)
        fflush(nil)
        if let file = value("--json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try? encoder.encode(report).write(to: URL(fileURLWithPath: file))
        }
        return report.errorsByCode.isEmpty ? 0 : 1
    }
}

/// A seeded random-number generator (SplitMix64) for the standard library's random APIs.
struct BenchRandom: RandomNumberGenerator {
    var state: SplitMix
    init(seed: UInt64) { state = SplitMix(seed: seed) }
    mutating func next() -> UInt64 { state.next() }
}
