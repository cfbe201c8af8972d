import BenchmarkSupport
import Foundation

/// The support library's generator under its own name in this module, for the files that do not import the
/// library (LoadGenerator.swift).
typealias SplitMix = BenchmarkSupport.SplitMix

/// One measured workload: ours beside its anchor, in the same run.
struct Workload: Sendable {
    let name: String
    let target: ResultRow.Target
    /// Prepares inputs (not timed) and returns what is timed.
    let make: @Sendable (_ quick: Bool) throws -> Timed

    /// The timed closures of a workload.
    struct Timed {
        var ours: () throws -> Void
        /// The same work done the simplest fast way (or by a peer library); `nil` when there is nothing to compare.
        var anchor: (() throws -> Void)?
        /// When set, each run handles this many items and the row reports rates in `rateUnit` instead of times.
        var items: Int?
        var rateUnit: String
        /// The inputs' size and anything else the row should say ("100k objects").
        var note: String?
        /// When set, each side prepares its run itself (untimed) and returns the seconds of the part measured; `ours`
        /// and `anchor` are then unused.
        var sampled: (ours: () throws -> Double, anchor: () throws -> Double)?

        init(ours: @escaping () throws -> Void, anchor: (() throws -> Void)?, items: Int? = nil,
             rateUnit: String = "/s", note: String? = nil)
        {
            self.ours = ours
            self.anchor = anchor
            self.items = items
            self.rateUnit = rateUnit
            self.note = note
        }

        /// A pair whose sides time part of each run themselves (see ``sampled``).
        init(sampledOurs: @escaping () throws -> Double, sampledAnchor: @escaping () throws -> Double,
             note: String? = nil)
        {
            self.init(ours: {}, anchor: {}, note: note)
            self.sampled = (sampledOurs, sampledAnchor)
        }
    }
}

/// Runs workloads and prints their rows as they are measured.
struct Harness {
    let quick: Bool
    let filter: String?

    func run(_ workloads: [Workload]) -> [ResultRow] {
        var rows: [ResultRow] = []
        ResultTable.printHeader()
        for workload in workloads where filter.map({ workload.name.localizedCaseInsensitiveContains($0) }) ?? true {
            let row: ResultRow
            do {
                row = try measure(workload)
            } catch {
                row = ResultRow.failed(workload.name, target: workload.target, error: error)
            }
            ResultTable.printRow(row)
            rows.append(row)
        }
        return rows
    }

    func measure(_ workload: Workload) throws -> ResultRow {
        let timed = try workload.make(quick)
        let runs = Figure.Runs.standard(quick: quick)
        var ours: Figure
        var anchor: Figure?
        if let sampled = timed.sampled {
            (ours, anchor) = try Figure.samplingPair(runs, unit: "s", ours: sampled.ours, anchor: sampled.anchor)
        } else if let anchorBody = timed.anchor {
            (ours, anchor) = try Figure.timingPair(runs, ours: timed.ours, anchor: anchorBody)
        } else {
            ours = try Figure.timing(runs, timed.ours)
        }
        if let items = timed.items {
            ours = ours.rate(items: Double(items), unit: timed.rateUnit)
            anchor = anchor?.rate(items: Double(items), unit: timed.rateUnit)
        }
        return ResultRow(workload: workload.name, ours: ours, anchor: anchor, target: workload.target,
                         note: timed.note)
    }
}
