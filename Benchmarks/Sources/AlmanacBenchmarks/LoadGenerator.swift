import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the daemon's Unix socket: one request line out, one answer line back.
final class UnixLineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// The receive buffer, reused for every recv (a fresh 64 KiB array per call cost the client more than reading).
    private var chunk = [UInt8](repeating: 0, count: 65_536)

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
            // memchr: the client's own cost per answer (some 30 KB for a limit-50 fetch) stays small beside the
            // daemon's on a shared machine.
            let found = buffer.withUnsafeBufferPointer { bytes -> Int? in
                guard scanFrom < bytes.count, let base = bytes.baseAddress,
                    let hit = memchr(base + scanFrom, 10, bytes.count - scanFrom)
                else { return nil }
                return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            }
            if let newline = found {
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
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count == 0 { throw Failure.closed }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timeout }
                throw Failure.io("recv", errno)
            }
            chunk.withUnsafeBufferPointer { buffer.append(contentsOf: $0[0..<count]) }
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

/// The error code of an answer, or `nil` when it is `ok`. Cheap for the common `ok` case: the daemon writes the
/// envelope (`id`, `ok`) first, so the first 256 bytes decide; the last 256 and then the whole line are searched only
/// when they do not (a 22 KB reply scanned byte by byte was most of the load generator's own CPU time, which it takes
/// from the daemon on a small machine).
private let okTrue = Array(#""ok":true"#.utf8)
private let okFalse = Array(#""ok":false"#.utf8)

func answerErrorCode(_ line: ArraySlice<UInt8>) -> String? {
    func find(_ needle: [UInt8], in window: ArraySlice<UInt8>) -> Bool {
        guard window.count >= needle.count else { return false }
        return window.withContiguousStorageIfAvailable { bytes -> Bool in
            let first = needle[0], count = needle.count
            var index = 0
            while index + count <= bytes.count {
                if bytes[index] == first {
                    var match = true
                    for offset in 1..<count where bytes[index + offset] != needle[offset] {
                        match = false
                        break
                    }
                    if match { return true }
                }
                index += 1
            }
            return false
        } ?? (window.firstRange(of: needle) != nil)
    }
    func failure() -> String {
        let json = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
        return ((json?["error"] as? [String: Any])?["code"] as? String) ?? "unknown"
    }
    // Three windows, without an array of them per answer (the client's own cost per request counts on a shared
    // machine).
    for which in 0..<3 {
        let window = which == 0 ? line.prefix(256) : which == 1 ? line.suffix(256) : line
        if find(okFalse, in: window) { return failure() }
        if find(okTrue, in: window) { return nil }
    }
    return "unreadable_answer"
}

/// The values of the `"uri"` keys in an answer, in order (the daemon's encoder escapes no `/`, and a URI holds no
/// `"` or `\`).
func objectURIs(in answer: ArraySlice<UInt8>) -> [String] {
    let key = Array(#""uri":""#.utf8)
    var uris: [String] = []
    var index = answer.startIndex
    while index + key.count <= answer.endIndex {
        guard answer[index] == key[0], answer[index..<index + key.count].elementsEqual(key) else {
            index += 1
            continue
        }
        let start = index + key.count
        guard let end = answer[start...].firstIndex(of: UInt8(ascii: "\"")) else { break }
        uris.append(String(decoding: answer[start..<end], as: UTF8.self))
        index = end + 1
    }
    return uris
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
        /// What the generator does with an answer besides timing it.
        var role: Role = .plain
        /// The request line for a client, a sequence number and the URI of an object the client fetched recently
        /// (nil before its first fetch) (no newline).
        var line: @Sendable (_ client: Int, _ sequence: Int, _ recentURI: String?) -> String
        /// The request's bytes with their newline when they are the same for every request (made once, not per
        /// request).
        var fixedBytes: [UInt8]? = nil
        /// The exact answer expected, for servers that do not speak the daemon's protocol (redis's `+PONG`);
        /// nil for the daemon's answers, checked for `"ok":true`.
        var expectedAnswer: [UInt8]? = nil

        /// The request's bytes for a client and sequence number, with their newline.
        func bytes(_ client: Int, _ sequence: Int, _ recentURI: @autoclosure () -> String?) -> [UInt8] {
            fixedBytes ?? Array((line(client, sequence, recentURI()) + "\n").utf8)
        }

        enum Role: Sendable {
            /// Only timed.
            case plain
            /// The answer's object URIs become the client's recent URIs (for a later `get`).
            case collectsURIs
            /// An insert whose URI is recorded when it is answered `ok`, so that a run can check afterwards that
            /// every acknowledged insert is still there.
            case recordsInsert
        }
    }

    /// An insert answered `ok`: the new object's URI and the `sessionGUID` it was given.
    struct AcknowledgedInsert: Codable, Sendable {
        var uri: String
        var sessionGUID: String
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
        /// Errors by request kind, then code (warm-up requests included).
        var errorsByKind: [String: [String: Int]]
        /// Inserts answered `ok` (warm-up requests included); their URIs go to the `--inserted` file.
        var insertsAcknowledged: Int
        var requestsByKind: [String: Int]
        var p50ByKind: [String: Double]
        /// Requests still unanswered after ``LoadGenerator/slowAfter`` seconds, answered or not in the end.
        var slowRequests: [SlowRequest] = []

        var summary: String {
            var text = String(format: "%d clients: %d requests in %.2f s = %.0f/s; p50 %.3f ms, p90 %.3f ms, "
                                + "p99 %.3f ms, max %.3f ms", clients, requests, seconds, throughput, p50 * 1000,
                              p90 * 1000, p99 * 1000, max * 1000)
            text += "; errors: " + (errorsByCode.isEmpty ? "none"
                : errorsByCode.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
            if !slowRequests.isEmpty {
                let lost = slowRequests.filter { $0.answeredAfter == nil }.count
                text += "; \(slowRequests.count) requests unanswered after \(LoadGenerator.slowAfter) s, "
                    + "\(lost) of them after \(LoadGenerator.giveUpAfter) s"
            }
            if requestsByKind.count > 1 {
                text += "\n  by kind: " + requestsByKind.keys.sorted().map {
                    String(format: "%@ %d (p50 %.3f ms)", $0, requestsByKind[$0]!, (p50ByKind[$0] ?? .nan) * 1000)
                }.joined(separator: ", ")
            }
            return text
        }
    }

    /// A request the daemon had not answered after ``LoadGenerator/slowAfter`` seconds.
    struct SlowRequest: Codable, Sendable {
        /// Seconds from the start of the timed run to the request's sending.
        var sentAt: Double
        var kind: String
        /// Seconds until its answer, or nil when none came within ``LoadGenerator/giveUpAfter`` seconds.
        var answeredAfter: Double?
        /// The answer's error code, when it was an error.
        var errorCode: String?
    }

    /// After this long without an answer a request counts as slow, and the wait goes on.
    static let slowAfter = 10
    /// A request is given up (and its client stops) after this long without an answer: past the daemon's own 30 s
    /// request deadline, so a request still unanswered then was lost, not merely slow.
    static let giveUpAfter = 40

    var socketPath: String
    var clients: Int
    var mix: [RequestKind]
    /// Requests per client at most.
    var requestsPerClient: Int
    /// Wall-clock bound of the whole run.
    var seconds: Double
    /// Untimed requests per client first.
    var warmUp: Int = 0

    /// The standard mix: sorted limit-50 fetches, a template, counts, Favorite inserts; with `getWeight`, also
    /// `get` of a Session the client fetched recently (whose store may have been detached since: `not_found`).
    static func standardMix(insertWeight: Int = 5, getWeight: Int = 0) -> [RequestKind] {
        // A session is a favourite once (the model's uniqueness constraint): each run inserts favourites of session
        // guids of its own, so that runs against one daemon do not collide.
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return [
            RequestKind(name: "fetch", weight: 70 - getWeight, role: getWeight > 0 ? .collectsURIs : .plain) {
                _, n, _ in
                #"{"id":\#(n),"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50}"#
            },
            RequestKind(name: "template", weight: 10) { _, n, _ in
                #"{"id":\#(n),"op":"template","name":"SessionsAt","variables":{"NOW":"2026-11-24T10:30:00Z"},"limit":50}"#
            },
            RequestKind(name: "count", weight: 15) { _, n, _ in
                #"{"id":\#(n),"op":"count","entity":"Session"}"#
            },
            RequestKind(name: "insert", weight: insertWeight, role: .recordsInsert) { client, n, _ in
                #"{"id":\#(n),"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"bench","sessionGUID":"load-\#(run)-\#(client)-\#(n)","createdAt":"2026-11-21T12:00:00Z","note":"load generator"}}"#
            },
            RequestKind(name: "get", weight: getWeight) { _, n, uri in
                // Before the client's first fetch there is nothing to get: a ping instead.
                uri.map { #"{"id":\#(n),"op":"get","uri":"\#($0)"}"# } ?? #"{"id":\#(n),"op":"ping"}"#
            },
        ].filter { $0.weight > 0 }
    }

    /// The sorted limit-50 fetch at 1,000 different offsets (client by client in a different order; warm-up
    /// requests have negative sequence numbers), so that answers kept by the daemon are rarely asked for again.
    static func distinctFetches() -> [RequestKind] {
        [RequestKind(name: "fetch", weight: 1) { client, n, _ in
            #"{"id":\#(n),"op":"fetch","entity":"Session","sort":[{"key":"start"}],"limit":50,"offset":\#(((client * 997 + n * 31) % 1000 + 1000) % 1000)}"#
        }]
    }

    /// `SessionsAt` at 1,000 moments ten minutes apart from 2026-11-22T00:00:00Z (the generated stores' week),
    /// in a different order per client, so that kept replies are rarely asked for again.
    static func sessionsAtMoments() -> [RequestKind] {
        let base = 1_795_305_600  // 2026-11-22T00:00:00Z
        let formatter = ISO8601DateFormatter()
        let moments = (0..<1000).map { formatter.string(from: Date(timeIntervalSince1970: Double(base + $0 * 600))) }
        return [RequestKind(name: "template", weight: 1) { client, n, _ in
            let moment = moments[((client * 997 + n * 31) % 1000 + 1000) % 1000]
            return #"{"id":\#(n),"op":"template","name":"SessionsAt","variables":{"NOW":"\#(moment)"},"limit":50}"#
        }]
    }

    static func only(_ name: String, _ line: String, expectedAnswer: String? = nil) -> [RequestKind] {
        [RequestKind(name: name, weight: 1, line: { _, _, _ in line }, fixedBytes: Array((line + "\n").utf8),
                     expectedAnswer: expectedAnswer.map { Array($0.utf8) })]
    }

    private final class ClientResult: @unchecked Sendable {  // written by its client's thread, read after join
        var latencies: [Double] = []
        var kinds: [Int] = []
        var errors: [String: Int] = [:]
        var errorsByKind: [String: [String: Int]] = [:]
        var inserted: [AcknowledgedInsert] = []
        var slow: [SlowRequest] = []
        /// URIs of the objects of the client's latest answer of a `collectsURIs` kind.
        var recentURIs: [String] = []

        /// Checks an answer: counts its error, or records what its kind's role asks for. Returns the error code.
        @discardableResult
        func check(_ answer: ArraySlice<UInt8>, of kind: RequestKind, line: [UInt8]) -> String? {
            if let expected = kind.expectedAnswer {
                guard answer.elementsEqual(expected) else {
                    count("unexpected_answer", of: kind)
                    return "unexpected_answer"
                }
                return nil
            }
            if let code = answerErrorCode(answer) {
                count(code, of: kind)
                return code
            }
            switch kind.role {
            case .plain: break
            case .collectsURIs:
                let found = objectURIs(in: answer)
                if !found.isEmpty { recentURIs = found }
            case .recordsInsert:
                let json = (try? JSONSerialization.jsonObject(with: Data(answer))) as? [String: Any]
                let request = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
                let guid = (request?["values"] as? [String: Any])?["sessionGUID"] as? String ?? ""
                if let uri = json?["uri"] as? String {
                    inserted.append(AcknowledgedInsert(uri: uri, sessionGUID: guid))
                } else {
                    count("insert_ok_without_uri", of: kind)
                }
            }
            return nil
        }

        func count(_ code: String, of kind: RequestKind) {
            errors[code, default: 0] += 1
            errorsByKind[kind.name, default: [:]][code, default: 0] += 1
        }

        /// The client's next recent URI, or nil before it fetched any.
        func recentURI(_ sequence: Int) -> String? {
            recentURIs.isEmpty ? nil : recentURIs[abs(sequence) % recentURIs.count]
        }
    }

    /// Runs the clients; `inserted` receives every insert answered `ok`.
    func run() -> Report {
        var inserted: [AcknowledgedInsert] = []
        return run(inserted: &inserted)
    }

    /// Runs the clients; `inserted` receives every insert answered `ok`.
    func run(inserted: inout [AcknowledgedInsert]) -> Report {
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
                var stage = "connect"
                do {
                    connection = try UnixLineClient(path: path, receiveTimeout: Double(Self.slowAfter))
                    stage = "warm-up"
                    // Warm-up: at most `warmUp` requests and at most 2 s. Untimed, but checked: an error counts,
                    // and an acknowledged insert is recorded like any other.
                    let warmUpEnd = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
                    for n in 0..<warmUp where DispatchTime.now().uptimeNanoseconds < warmUpEnd {
                        let kind = mix[kinds[n % kinds.count]]
                        let line = kind.bytes(client, -n - 1, result.recentURI(n))
                        result.check(try connection.roundTrip(line), of: kind, line: line)
                    }
                } catch {
                    result.errors["\(stage): \(error)", default: 0] += 1
                    result.errorsByKind[stage, default: [:]]["\(error)", default: 0] += 1
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
                    let kind = mix[kindIndex]
                    let line = kind.bytes(client, n, result.recentURI(n))
                    let begin = DispatchTime.now().uptimeNanoseconds
                    do {
                        try connection.send(line)
                        var slow: SlowRequest?
                        var answer: ArraySlice<UInt8>?
                        // A receive timeout marks the request slow; the wait goes on to `giveUpAfter` seconds.
                        while answer == nil {
                            do {
                                answer = try connection.readLine()
                            } catch UnixLineClient.Failure.timeout {
                                let waited = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
                                if slow == nil {
                                    slow = SlowRequest(sentAt: Double(begin - deadlineBox.start) / 1e9,
                                                       kind: kind.name)
                                }
                                if waited >= Double(Self.giveUpAfter) {
                                    result.slow.append(slow!)
                                    throw UnixLineClient.Failure.timeout
                                }
                            }
                        }
                        let end = DispatchTime.now().uptimeNanoseconds
                        result.latencies.append(Double(end - begin) / 1e9)
                        result.kinds.append(kindIndex)
                        let code = result.check(answer!, of: kind, line: line)
                        if var slow {
                            slow.answeredAfter = Double(end - begin) / 1e9
                            slow.errorCode = code
                            result.slow.append(slow)
                        }
                    } catch {
                        result.count("transport: \(error)", of: kind)
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
        deadlineBox.start = begin
        deadlineBox.deadline = begin + UInt64(seconds * 1e9)
        for _ in 0..<clients { barrier.signal() }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
        var all: [Double] = []
        var byKind: [Int: [Double]] = [:]
        var errors: [String: Int] = [:]
        var errorsByKind: [String: [String: Int]] = [:]
        for result in results {
            all += result.latencies
            for (latency, kind) in zip(result.latencies, result.kinds) { byKind[kind, default: []].append(latency) }
            errors.merge(result.errors, uniquingKeysWith: +)
            errorsByKind.merge(result.errorsByKind) { $0.merging($1, uniquingKeysWith: +) }
        }
        inserted = results.flatMap(\.inserted)
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
                      errorsByKind: errorsByKind, insertsAcknowledged: inserted.count, requestsByKind: counts,
                      p50ByKind: p50s, slowRequests: results.flatMap(\.slow).sorted { $0.sentAt < $1.sentAt })
    }

    private final class DeadlineBox: @unchecked Sendable {
        var deadline: UInt64 = .max  // written before the barrier is released, read after
        var start: UInt64 = 0  // the same
    }

    /// `AlmanacBenchmarks load --socket PATH [--clients N] [--seconds S] [--requests N] [--warmup N]
    /// [--mix standard|churn|readonly|fetch|fetch-distinct|sessions-at|ping] [--json FILE] [--inserted FILE]`
    ///
    /// `churn` is the standard mix with 5% of the fetches turned into a `get` of a Session the client fetched
    /// recently. `--inserted` writes the inserts answered `ok` as a JSON array of `{"uri", "sessionGUID"}`.
    static func commandLine(_ arguments: [String]) -> Int32 {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex
                ? arguments[arguments.index(after: $0)] : nil }
        }
        guard let socket = value("--socket") else {
            print("usage: AlmanacBenchmarks load --socket PATH [--clients 32] [--seconds 60] [--requests N] "
                    + "[--warmup N] [--mix standard|churn|readonly|fetch|fetch-distinct|sessions-at|ping] [--json FILE] [--inserted FILE]")
            return 2
        }
        let clients = value("--clients").flatMap(Int.init) ?? 32
        let seconds = min(value("--seconds").flatMap(Double.init) ?? 60, 3600)
        let requests = value("--requests").flatMap(Int.init) ?? 10_000_000
        let mix: [RequestKind]
        switch value("--mix") ?? "standard" {
        case "ping": mix = only("ping", #"{"id":1,"op":"ping"}"#)
        case "fetch": mix = standardMix(insertWeight: 0).filter { $0.name == "fetch" }
        case "fetch-distinct": mix = distinctFetches()
        case "sessions-at": mix = sessionsAtMoments()
        case "readonly": mix = standardMix(insertWeight: 0)
        case "churn": mix = standardMix(getWeight: 5)
        default: mix = standardMix()
        }
        let generator = LoadGenerator(socketPath: socket, clients: clients, mix: mix, requestsPerClient: requests,
                                      seconds: seconds, warmUp: value("--warmup").flatMap(Int.init) ?? 10)
        var inserted: [AcknowledgedInsert] = []
        let report = generator.run(inserted: &inserted)
        print(report.summary)
        fflush(nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let file = value("--json") {
            try? encoder.encode(report).write(to: URL(fileURLWithPath: file))
        }
        if let file = value("--inserted") {
            do {
                try encoder.encode(inserted).write(to: URL(fileURLWithPath: file))
            } catch {
                print("cannot write \(file): \(error)")
                return 1
            }
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
