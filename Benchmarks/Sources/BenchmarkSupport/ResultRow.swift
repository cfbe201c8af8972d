/// One row of the benchmark table, the shape every benchmark writes and `scripts/bench-all.sh` merges:
/// our figure, the anchor's figure measured in the same run (or none), their ratio, the target and whether it is met.
public struct ResultRow: Codable, Sendable {
    /// What is measured, and against what ("XML store load vs xmllint --noout").
    public var workload: String
    /// Our figure; `nil` when the workload failed or was skipped (`note` says why).
    public var ours: Figure?
    /// The anchor's figure, in the same unit as ours; `nil` when the workload has no anchor.
    public var anchor: Figure?
    /// `ours.median / anchor.median` (in the figures' unit: above 1 is slower for times, faster for rates).
    public var ratio: Double?
    /// The target as text ("ratio ≤ 2", "≤ 500 µs", "none").
    public var target: String
    /// Whether the target is met; `nil` when there is no target or the workload was skipped.
    public var pass: Bool?
    /// Anything a reader of the figure needs: sizes, other percentiles, why a row was skipped or failed.
    public var note: String?

    public init(workload: String, ours: Figure, anchor: Figure? = nil, target: Target, note: String? = nil) {
        self.workload = workload
        self.note = note
        self.target = target.description(unit: ours.unit)
        guard ours.isFinite, anchor?.isFinite ?? true else {
            self.pass = false
            self.note = ["error: a figure is not a number", note].compactMap { $0 }.joined(separator: "; ")
            return
        }
        self.ours = ours
        self.anchor = anchor
        if let anchor, anchor.median != 0 { ratio = ours.median / anchor.median }
        pass = target.isMet(by: ours, ratio: ratio)
    }

    /// A row for a workload that could not run: it counts as a miss when it has a target (`unit`: the unit of an
    /// absolute target).
    public static func failed(_ workload: String, target: Target, unit: String = "", error: any Error) -> ResultRow {
        ResultRow(workload: workload, target: target.description(unit: unit), pass: target.isNone ? nil : false,
                  note: "error: \(error)")
    }

    /// A row for a workload left out on this machine ("skipped: redis-benchmark not installed").
    public static func skipped(_ workload: String, target: Target, unit: String = "", reason: String) -> ResultRow {
        ResultRow(workload: workload, target: target.description(unit: unit), pass: nil, note: "skipped: \(reason)")
    }

    private enum CodingKeys: String, CodingKey {
        case workload, ours, anchor, ratio, target, pass, note
    }

    /// Writes every key, absent values as `null`, so that each row has the same shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(workload, forKey: .workload)
        try container.encode(ours, forKey: .ours)
        try container.encode(anchor, forKey: .anchor)
        try container.encode(ratio, forKey: .ratio)
        try container.encode(target, forKey: .target)
        try container.encode(pass, forKey: .pass)
        try container.encode(note, forKey: .note)
    }

    /// Whether the workload failed to run (as opposed to running and missing its target).
    public var isError: Bool { ours == nil && (note?.hasPrefix("error") ?? false) }

    private init(workload: String, target: String, pass: Bool?, note: String) {
        self.workload = workload
        self.target = target
        self.pass = pass
        self.note = note
    }

    /// What a row must reach.
    public enum Target: Sendable {
        /// No target: the figure (or the ratio against a peer) is the result.
        case none
        /// ours / anchor must be at most this (times: at most this many times slower).
        case ratioAtMost(Double)
        /// ours / anchor must be at least this (rates: at least this fraction of the anchor's rate).
        case ratioAtLeast(Double)
        /// Our median must be at most this, in our figure's unit.
        case atMost(Double)
        /// Our median must be at least this, in our figure's unit.
        case atLeast(Double)

        public var isNone: Bool {
            if case .none = self { return true }
            return false
        }

        public func description(unit: String) -> String {
            switch self {
            case .none: "none"
            case .ratioAtMost(let limit): "ratio ≤ \(Format.number(limit))"
            case .ratioAtLeast(let limit): "ratio ≥ \(Format.number(limit))"
            case .atMost(let limit): "≤ " + Format.value(limit, unit: unit)
            case .atLeast(let limit): "≥ " + Format.value(limit, unit: unit)
            }
        }

        /// Whether the target is met; `nil` when there is none, `false` when a ratio target has no ratio.
        public func isMet(by ours: Figure, ratio: Double?) -> Bool? {
            switch self {
            case .none: nil
            case .ratioAtMost(let limit): ratio.map { $0 <= limit } ?? false
            case .ratioAtLeast(let limit): ratio.map { $0 >= limit } ?? false
            case .atMost(let limit): ours.median <= limit
            case .atLeast(let limit): ours.median >= limit
            }
        }
    }
}
