import Foundation

/// How figures are printed in the tables (the merged table of `scripts/bench-all.sh` follows the same rules).
public enum Format {
    /// A value with its unit, three significant digits: times scaled to s, ms or µs; rates to k or M per second.
    public static func value(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "\(value) \(unit)" }
        let (scaled, prefix, suffix) = scale(value, unit: unit, reference: value)
        return number(scaled) + prefix + suffix
    }

    /// "median (minimum–maximum, n runs)", the extremes in the median's scale; "median (n runs)" when every run
    /// gave the same value.
    public static func figure(_ figure: Figure) -> String {
        let (median, prefix, suffix) = scale(figure.median, unit: figure.unit, reference: figure.median)
        if figure.runs <= 1 { return number(median) + prefix + suffix }
        if figure.minimum == figure.maximum { return number(median) + prefix + suffix + " (\(figure.runs) runs)" }
        let (minimum, _, _) = scale(figure.minimum, unit: figure.unit, reference: figure.median)
        let (maximum, _, _) = scale(figure.maximum, unit: figure.unit, reference: figure.median)
        return number(median) + prefix + suffix + " (\(number(minimum))–\(number(maximum)), \(figure.runs) runs)"
    }

    /// Three significant digits, no exponent for the magnitudes benchmarks produce.
    public static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        if abs(value) >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3g", value)
    }

    /// The value divided into a readable scale, the scale's prefix (" ms", "k") and the rest of the unit.
    private static func scale(_ value: Double, unit: String, reference: Double) -> (Double, String, String) {
        let magnitude = abs(reference)
        if unit == "s" {
            if magnitude >= 1 || magnitude == 0 { return (value, " s", "") }
            if magnitude >= 1e-3 { return (value * 1e3, " ms", "") }
            return (value * 1e6, " µs", "")
        }
        if unit.hasSuffix("/s") {
            let suffix = unit == "/s" ? "/s" : " " + unit
            if magnitude >= 1e6 { return (value / 1e6, "M", suffix) }
            if magnitude >= 1e4 { return (value / 1e3, "k", suffix) }
            return (value, "", suffix)
        }
        return (value, unit.isEmpty ? "" : " " + unit, "")
    }
}

/// The human-readable table of rows every benchmark prints.
public enum ResultTable {
    public static let header = ["workload", "ours", "anchor", "ratio", "target", "result"]

    public static func cells(_ row: ResultRow) -> [String] {
        [
            row.workload, row.ours.map(Format.figure) ?? "—", row.anchor.map(Format.figure) ?? "—",
            row.ratio.map { String(format: "%.2f", $0) } ?? "—", row.target, verdict(row),
        ]
    }

    public static func verdict(_ row: ResultRow) -> String {
        if let note = row.note, row.ours == nil {
            return note.hasPrefix("skipped") ? "skipped" : "ERROR"
        }
        return row.pass.map { $0 ? "pass" : "FAIL" } ?? "—"
    }

    /// The header; rows follow with `printRow` as they are measured (flushed, so progress shows through a pipe).
    public static func printHeader() {
        say(header.joined(separator: " | "))
        say(header.map { String(repeating: "-", count: $0.count) }.joined(separator: " | "))
    }

    public static func printRow(_ row: ResultRow) {
        say(cells(row).joined(separator: " | ") + (row.note.map { "  (\($0))" } ?? ""))
    }

    public static func print(_ rows: [ResultRow]) {
        printHeader()
        for row in rows { printRow(row) }
    }
}

/// Prints a line and flushes, so progress shows when the output goes to a file or a pipe.
public func say(_ line: String) {
    print(line)
    fflush(nil)
}
