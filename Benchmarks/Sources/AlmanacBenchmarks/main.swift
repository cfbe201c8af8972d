import Foundation

// Usage:
//   swift run -c release AlmanacBenchmarks [--quick] [--filter TEXT]            core workloads -> results/latest.json
//   swift run -c release AlmanacBenchmarks daemon [--quick] [--filter fetch|ping|startup|drop] [--almanacd PATH]
//                                                                               almanacd over its socket -> results/daemon.json
//   swift run -c release AlmanacBenchmarks grdb [--quick] [--filter TEXT]       our SQLite store vs GRDB -> results/grdb.json
//   swift run -c release AlmanacBenchmarks load --socket PATH [--clients 32] [--seconds 60] [--mix standard|readonly|fetch|ping]
//                                                                               the load generator against a running almanacd
let arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
func argument(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex
        ? arguments[arguments.index(after: $0)] : nil }
}
let filter = argument("--filter")
let mode = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "core"

if mode == "load" {
    exit(LoadGenerator.commandLine(Array(arguments.dropFirst())))
}

let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("results")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf",
                                                              nan: "nan")
let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
    + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"

struct Report: Codable {
    var date: Date
    var quick: Bool
    var machine: String
    var results: [Result]
}

switch mode {
case "core":
    let harness = Harness(quick: quick, filter: filter)
    let results = try harness.run(CoreWorkloads.all)
    try encoder.encode(Report(date: Date(), quick: quick, machine: machine, results: results))
        .write(to: folder.appendingPathComponent(quick ? "quick.json" : "latest.json"))
case "grdb":
    let harness = Harness(quick: quick, filter: filter)
    let results = try harness.run(GRDBWorkloads.all)
    GRDBWorkloads.removeFolder()
    try encoder.encode(Report(date: Date(), quick: quick, machine: machine, results: results))
        .write(to: folder.appendingPathComponent(quick ? "grdb-quick.json" : "grdb.json"))
    if results.contains(where: { $0.error != nil }) { exit(1) }
case "daemon":
    struct DaemonReport: Codable {
        var date: Date
        var quick: Bool
        var machine: String
        var loadAverage: String
        var figures: [DaemonFigure]
    }
    let load = DaemonWorkloads.loadAverage()
    let figures = DaemonWorkloads.run(quick: quick, filter: filter, binary: argument("--almanacd"))
    try encoder.encode(DaemonReport(date: Date(), quick: quick, machine: machine, loadAverage: load, figures: figures))
        .write(to: folder.appendingPathComponent((quick ? "daemon-quick" : "daemon")
                                              + (filter.map { "-\($0)" } ?? "") + ".json"))
    if figures.isEmpty { exit(1) }
default:
    print("unknown mode \(mode); use core (default), grdb, daemon or load")
    exit(2)
}
