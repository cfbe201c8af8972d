import Foundation

/// What a benchmark writes with `--json PATH`: its rows and where they were measured. `scripts/bench-all.sh`
/// merges the rows of every tool into `Benchmarks/results/latest.json` (`quick.json` with `--quick`).
public struct ResultFile: Codable, Sendable {
    public var tool: String
    /// ISO 8601, UTC.
    public var date: String
    public var machine: String
    public var quick: Bool
    public var rows: [ResultRow]

    public init(tool: String, quick: Bool, rows: [ResultRow]) {
        self.tool = tool
        self.date = ISO8601DateFormatter().string(from: Date())
        self.machine = Self.machine
        self.quick = quick
        self.rows = rows
    }

    /// Cores, memory, the operating system and the load average now.
    public static var machine: String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.physicalMemory / 1_073_741_824) GiB, "
            + "\(info.operatingSystemVersionString); load average \(loadAverage)"
    }

    /// The 1, 5 and 15-minute load averages from /proc/loadavg ("?" where there is none).
    public static var loadAverage: String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
    }

    /// Writes the file (creating its folder), pretty-printed with sorted keys.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}

/// The few command-line options the benchmark tools share: `--quick`, `--json PATH`, `--filter TEXT`.
public struct Arguments: Sendable {
    public let values: [String]

    public init(_ values: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.values = values
    }

    public func has(_ flag: String) -> Bool { values.contains(flag) }

    /// The value after `name`, if any.
    public func value(_ name: String) -> String? {
        guard let index = values.firstIndex(of: name), index + 1 < values.count else { return nil }
        return values[index + 1]
    }

    public var quick: Bool { has("--quick") }
    public var jsonURL: URL? { value("--json").map { URL(fileURLWithPath: $0) } }
    public var filter: String? { value("--filter") }

    /// The arguments that are neither options nor their values.
    public var positional: [String] {
        var result: [String] = []
        var index = 0
        let takesValue: Set<String> = ["--json", "--filter", "--only"]
        while index < values.count {
            let value = values[index]
            if takesValue.contains(value) {
                index += 2
                continue
            }
            if !value.hasPrefix("--") { result.append(value) }
            index += 1
        }
        return result
    }
}
