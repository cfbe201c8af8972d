import AlmanacWire
import Foundation
import ObjectGraph

/// Counts requests and errors and keeps recent latencies for percentiles.
public final class RequestStatistics: Sendable {
    private struct State {
        var requests = 0
        var errors = 0
        var latencies: [Double] = []
        var next = 0
    }

    private let state = LockedValue(State())
    private let capacity = 10_000
    private let started = ContinuousClock.now

    /// Creates empty statistics.
    public init() {}

    /// Records one answered request.
    public func record(duration: Duration, failed: Bool) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        state.withLock { state in
            state.requests += 1
            if failed { state.errors += 1 }
            if state.latencies.count < capacity {
                state.latencies.append(seconds)
            } else {
                state.latencies[state.next] = seconds
                state.next = (state.next + 1) % capacity
            }
        }
    }

    /// Requests and errors since start; latency percentiles and maximum in milliseconds, over the last 10,000
    /// requests.
    public func snapshot() -> (requests: Int, errors: Int, latency: WireResponse.Stats.Latency) {
        let copy = state.withLock { $0 }
        let sorted = copy.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
        }
        let latency = WireResponse.Stats.Latency(
            p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99), max: (sorted.last ?? 0) * 1000)
        return (copy.requests, copy.errors, latency)
    }

    /// Seconds since the process started (from /proc), or since these statistics were made where that is unknown.
    public func uptime() -> Double {
        if let seconds = Self.processUptime() { return seconds }
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The process's age: the system's uptime less the process's start time (field 22 of /proc/self/stat, in clock
    /// ticks since boot).
    static func processUptime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let systemSeconds = system.split(separator: " ").first.flatMap({ Double($0) }),
            let afterName = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 19, let ticks = Double(fields[19]), ticksPerSecond > 0 else { return nil }
        return max(0, systemSeconds - ticks / ticksPerSecond)
    }

    /// The process's resident memory in bytes, from /proc/self/statm (0 where unavailable).
    public static func residentMemory() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
