import Foundation

/// A measured figure: the median and spread of repeated runs, in a unit ("s" for times, "objects/s" for rates…).
///
/// Every benchmark reports its figures this way, so that `scripts/bench-all.sh` can merge them into one table.
/// (Not named `Measurement`: Foundation exports that name.)
public struct Figure: Codable, Sendable, Equatable {
    public var median: Double
    public var minimum: Double
    public var maximum: Double
    public var runs: Int
    public var unit: String

    public init(median: Double, minimum: Double, maximum: Double, runs: Int, unit: String) {
        self.median = median
        self.minimum = minimum
        self.maximum = maximum
        self.runs = runs
        self.unit = unit
    }

    /// The figure of `samples` (at least one).
    public init(samples: [Double], unit: String) {
        precondition(!samples.isEmpty, "a figure needs at least one sample")
        let sorted = samples.sorted()
        self.init(median: sorted[sorted.count / 2], minimum: sorted.first!, maximum: sorted.last!,
                  runs: sorted.count, unit: unit)
    }

    /// One value measured once (a count, a size, a figure a tool reports for a whole run).
    public static func single(_ value: Double, unit: String) -> Figure {
        Figure(median: value, minimum: value, maximum: value, runs: 1, unit: unit)
    }

    /// Whether every value is a finite number (JSON has no NaN or infinity).
    public var isFinite: Bool { median.isFinite && minimum.isFinite && maximum.isFinite }

    /// A time figure turned into a rate: `items` per run divided by each time, in `unit` ("objects/s").
    public func rate(items: Double, unit: String) -> Figure {
        Figure(median: items / median, minimum: items / maximum, maximum: items / minimum, runs: runs, unit: unit)
    }

    /// Every value multiplied by `factor` (seconds per iteration from seconds per batch, bytes to MB…).
    public func scaled(by factor: Double, unit: String? = nil) -> Figure {
        Figure(median: median * factor, minimum: minimum * factor, maximum: maximum * factor, runs: runs,
               unit: unit ?? self.unit)
    }

    // MARK: Measuring

    /// How many runs a figure takes: at least `minimum`, then until the last `minimum` runs agree within 5% or
    /// `maximum` runs are done. A warm-up run comes first and is not counted.
    public struct Runs: Sendable {
        public var minimum: Int
        public var maximum: Int
        /// The counts `timing` and `timingPair` use instead when the warm-up took a second or more; `nil` keeps
        /// these.
        public var slow: (minimum: Int, maximum: Int)?

        public init(minimum: Int, maximum: Int, slow: (minimum: Int, maximum: Int)? = nil) {
            precondition(minimum >= 1 && maximum >= minimum)
            self.minimum = minimum
            self.maximum = maximum
            self.slow = slow
        }

        /// The harness's usual counts: 3 to 5 runs with `--quick`; 5 to 15 otherwise, 3 to 7 when a run takes a
        /// second or more.
        public static func standard(quick: Bool) -> Runs {
            quick ? Runs(minimum: 3, maximum: 5) : Runs(minimum: 5, maximum: 15, slow: (3, 7))
        }

        /// For workloads known to take a second or more per run: 3 to 5 runs with `--quick`, 3 to 7 otherwise.
        public static func long(quick: Bool) -> Runs {
            quick ? Runs(minimum: 3, maximum: 5) : Runs(minimum: 3, maximum: 7)
        }

        /// These runs, or the `slow` ones when a run took `seconds` of a second or more.
        public func adjusted(toRunSeconds seconds: Double) -> Runs {
            guard seconds >= 1, let slow else { return self }
            return Runs(minimum: slow.minimum, maximum: slow.maximum)
        }

        /// Whether the last `minimum` samples agree within 5%.
        public func isStable(_ samples: [Double]) -> Bool {
            guard samples.count >= minimum else { return false }
            let recent = samples.suffix(minimum)
            return recent.max()! <= recent.min()! * 1.05
        }
    }

    /// Seconds taken by `body`.
    public static func seconds(of body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return seconds(ContinuousClock.now - start)
    }

    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Times `body` (after one warm-up run) until stable; the figure is in seconds.
    public static func timing(_ runs: Runs, _ body: () throws -> Void) rethrows -> Figure {
        let warmUp = try seconds(of: body)
        return try sampling(runs.adjusted(toRunSeconds: warmUp), unit: "s", warmUp: false) { try seconds(of: body) }
    }

    /// Calls `sample` (once to warm up unless `warmUp` is false, then until stable) and collects the values it
    /// returns: for workloads that time part of what they do themselves, or measure something other than time.
    public static func sampling(_ runs: Runs, unit: String, warmUp: Bool = true, _ sample: () throws -> Double)
        rethrows -> Figure
    {
        if warmUp { _ = try sample() }
        var samples: [Double] = []
        while samples.count < runs.maximum {
            samples.append(try sample())
            if runs.isStable(samples) { break }
        }
        return Figure(samples: samples, unit: unit)
    }

    /// Times ours and the anchor in alternation (anchor, ours, anchor, ours…), so that a change in the machine's
    /// load during the measurement affects both sides alike; stops when both are stable.
    public static func timingPair(_ runs: Runs, ours: () throws -> Void, anchor: () throws -> Void) rethrows
        -> (ours: Figure, anchor: Figure)
    {
        let warmUp = try seconds(of: anchor) + seconds(of: ours)  // the cost of one counted run
        return try samplingPair(runs.adjusted(toRunSeconds: warmUp), unit: "s", warmUp: false,
                                ours: { try seconds(of: ours) }, anchor: { try seconds(of: anchor) })
    }

    /// `sampling` for two sides in alternation.
    public static func samplingPair(_ runs: Runs, unit: String, warmUp: Bool = true, ours: () throws -> Double,
                                    anchor: () throws -> Double) rethrows -> (ours: Figure, anchor: Figure)
    {
        if warmUp {
            _ = try anchor()
            _ = try ours()
        }
        var anchorSamples: [Double] = []
        var ourSamples: [Double] = []
        while ourSamples.count < runs.maximum {
            anchorSamples.append(try anchor())
            ourSamples.append(try ours())
            if runs.isStable(ourSamples) && runs.isStable(anchorSamples) { break }
        }
        return (Figure(samples: ourSamples, unit: unit), Figure(samples: anchorSamples, unit: unit))
    }
}
