import BenchmarkSupport
import Foundation

// Usage:
//   AlmanacBenchmarks [core] [--quick] [--filter TEXT] [--json PATH]
//       framework core vs hand-written Swift; rows to PATH (default results/core[-quick][-FILTER].json)
//   AlmanacBenchmarks grdb [--quick] [--filter TEXT] [--json PATH]
//       our SQLite store vs GRDB (default results/grdb[-quick].json)
//   AlmanacBenchmarks daemon [--quick] [--filter fetch|ping|startup|drop|propagation] [--almanacd PATH] [--json PATH]
//       almanacd over its socket (default results/daemon[-quick].json)
//   AlmanacBenchmarks postgres [--quick] [--filter insert|fetch|daemons] [--almanacd PATH] [--json PATH]
//       the PostgreSQL store vs PostgresNIO by hand on ALMANAC_POSTGRES_URL's server (default
//       results/postgres[-quick].json); one skipped row when the variable is unset
//   AlmanacBenchmarks growth [--sizes 10000,100000,1000000] [--seconds 5] [--almanacd PATH] [--json PATH]
//       fetch and count p50/p99 and RSS at each size (scripts/growth-table.sh; default results/growth.json)
//   AlmanacBenchmarks scale [--files 10000] [--frab-sessions 1000000] --almanacd PATH [--json PATH]
//       10,000 small files to READY and a million-session frab file dropped in (scripts/growth-table.sh; default
//       results/scale.json)
//   AlmanacBenchmarks load --socket PATH [--clients 32] [--seconds 60] [--mix standard|readonly|fetch|ping]
//       the load generator against a running almanacd
// `scripts/bench-all.sh` runs the first three with the other tools and merges their rows into results/latest.json.
let arguments = Arguments()
let quick = arguments.quick
let filter = arguments.filter
let mode = arguments.values.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "core"

if mode == "load" {
    exit(LoadGenerator.commandLine(Array(arguments.values.dropFirst())))
}

let results = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("results")

/// Writes the rows to `--json PATH`, or to results/NAME[-quick][-FILTER].json; exits with 1 when a workload could
/// not run (a missed target is a figure, not a failure).
func finish(_ rows: [ResultRow], defaultName: String) throws {
    let name = defaultName + (quick ? "-quick" : "") + (filter.map { "-\($0)" } ?? "") + ".json"
    let url = arguments.jsonURL ?? results.appendingPathComponent(name)
    try ResultFile(tool: "AlmanacBenchmarks \(mode)", quick: quick, rows: rows).write(to: url)
    if rows.isEmpty || rows.contains(where: \.isError) { exit(1) }
}

switch mode {
case "core":
    let rows = Harness(quick: quick, filter: filter).run(CoreWorkloads.all)
    NestedWorkloads.removeFolder()
    try finish(rows, defaultName: "core")
case "grdb":
    let rows = Harness(quick: quick, filter: filter).run(GRDBWorkloads.all)
    GRDBWorkloads.removeFolder()
    try finish(rows, defaultName: "grdb")
case "daemon":
    let rows = DaemonWorkloads.run(quick: quick, filter: filter, binary: arguments.value("--almanacd"))
    try finish(rows, defaultName: "daemon")
case "postgres":
    let rows = PostgresWorkloads.run(quick: quick, filter: filter, binary: arguments.value("--almanacd"))
    try finish(rows, defaultName: "postgres")
case "growth", "scale":
    guard let binary = arguments.value("--almanacd") ?? ProcessInfo.processInfo.environment["ALMANACD"],
        FileManager.default.isExecutableFile(atPath: binary)
    else {
        print("\(mode): pass --almanacd PATH (a release almanacd)")
        exit(2)
    }
    if mode == "scale" {
        try finish(ScaleRows.run(arguments: arguments, binary: binary), defaultName: "scale")
        break
    }
    let lines = try GrowthTable.run(arguments: arguments, binary: binary)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf",
                                                                  nan: "nan")
    try encoder.encode(lines).write(to: arguments.jsonURL ?? results.appendingPathComponent("growth.json"))
default:
    print("unknown mode \(mode); use core (default), grdb, daemon, postgres, growth, scale or load")
    exit(2)
}
