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

    /// Requests, errors and latency percentiles in milliseconds (over the last 10,000 requests).
    public func snapshot() -> (requests: Int, errors: Int, p50: Double, p90: Double, p99: Double) {
        let copy = state.withLock { $0 }
        let sorted = copy.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
        }
        return (copy.requests, copy.errors, percentile(0.5), percentile(0.9), percentile(0.99))
    }

    /// The process's resident memory in bytes, from /proc/self/statm (0 where unavailable).
    public static func residentMemory() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
