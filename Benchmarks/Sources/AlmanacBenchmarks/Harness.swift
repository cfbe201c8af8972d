import Foundation

/// One measured workload: ours beside its anchor, in the same run.
struct Workload: Sendable {
    let name: String
    /// What the ratio means and the target, e.g. "ours/anchor <= 2.0".
    let target: Target
    /// Prepares inputs (not timed) and returns the two timed closures.
    let make: @Sendable (_ quick: Bool) throws -> (ours: () throws -> Void, anchor: () throws -> Void)

    enum Target: Sendable {
        /// ours must take at most `factor` times the anchor's time.
        case atMostTimes(Double)
        /// ours must reach at least `factor` times the anchor's throughput (anchor time / ours time >= factor).
        case atLeastThroughput(Double)
        /// No target: the ratio is the figure (ours against a peer library).
        case ratioOnly

        var description: String {
            switch self {
            case .atMostTimes(let factor): "time <= \(factor)x anchor"
            case .atLeastThroughput(let factor): "rate >= \(factor)x anchor"
            case .ratioOnly: "ratio only"
            }
        }

        func passes(ours: Double, anchor: Double) -> Bool {
            switch self {
            case .atMostTimes(let factor): ours <= anchor * factor
            case .atLeastThroughput(let factor): anchor / ours >= factor
            case .ratioOnly: true
            }
        }
    }
}

/// Timing statistics of repeated runs.
struct Measurement: Codable {
    var median: Double
    var minimum: Double
    var maximum: Double
    var runs: Int

    /// Runs `body` once to warm up, then until `minimumRuns` runs and either the spread of the last runs is within
    /// 5% or `maximumRuns` is reached.
    static func of(minimumRuns: Int, maximumRuns: Int, _ body: () throws -> Void) rethrows -> Measurement {
        try body()
        var times: [Double] = []
        while times.count < maximumRuns {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            if times.count >= minimumRuns {
                let recent = times.suffix(minimumRuns).sorted()
                if recent.last! <= recent.first! * 1.05 { break }
            }
        }
        let sorted = times.sorted()
        return Measurement(median: sorted[sorted.count / 2], minimum: sorted.first!, maximum: sorted.last!,
                           runs: sorted.count)
    }
}

struct Result: Codable {
    var workload: String
    var ours: Measurement
    var anchor: Measurement
    var ratio: Double
    var target: String
    var pass: Bool
    var error: String?
}

/// Runs workloads, prints a table, and writes `results/latest.json`.
struct Harness {
    let quick: Bool
    let filter: String?

    static func verdict(_ target: Workload.Target, _ pass: Bool) -> String {
        if case .ratioOnly = target { return "—" }
        return pass ? "pass" : "FAIL"
    }

    func run(_ workloads: [Workload]) throws -> [Result] {
        var results: [Result] = []
        let header = ["workload", "ours (ms)", "anchor (ms)", "ratio", "target", "result"]
        print(header.joined(separator: " | "))
        print(header.map { String(repeating: "-", count: $0.count) }.joined(separator: " | "))
        for workload in workloads where filter.map({ workload.name.localizedCaseInsensitiveContains($0) }) ?? true {
            do {
                let (ours, anchor) = try workload.make(quick)
                let runs = quick ? (3, 5) : (5, 15)
                let anchorTime = try Measurement.of(minimumRuns: runs.0, maximumRuns: runs.1, anchor)
                let oursTime = try Measurement.of(minimumRuns: runs.0, maximumRuns: runs.1, ours)
                let ratio = oursTime.median / anchorTime.median
                let pass = workload.target.passes(ours: oursTime.median, anchor: anchorTime.median)
                let result = Result(workload: workload.name, ours: oursTime, anchor: anchorTime, ratio: ratio,
                                    target: workload.target.description, pass: pass, error: nil)
                results.append(result)
                print([workload.name, String(format: "%.2f", oursTime.median * 1000),
                       String(format: "%.2f", anchorTime.median * 1000), String(format: "%.2f", ratio),
                       workload.target.description, Self.verdict(workload.target, pass)].joined(separator: " | "))
            } catch {
                print("\(workload.name) | error: \(error)")
                let zero = Measurement(median: 0, minimum: 0, maximum: 0, runs: 0)
                results.append(Result(workload: workload.name, ours: zero, anchor: zero, ratio: 0,
                                      target: workload.target.description, pass: false, error: "\(error)"))
            }
        }
        return results
    }
}
