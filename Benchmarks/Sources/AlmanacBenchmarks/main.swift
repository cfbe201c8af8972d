import Foundation

// Usage: swift run -c release AlmanacBenchmarks [--quick] [--filter TEXT]
let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let filter = arguments.firstIndex(of: "--filter").flatMap { arguments.index(after: $0) < arguments.endIndex
    ? arguments[arguments.index(after: $0)] : nil }

let harness = Harness(quick: quick, filter: filter)
let results = try harness.run(CoreWorkloads.all)
let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("results")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
struct Report: Codable {
    var date: Date
    var quick: Bool
    var machine: String
    var results: [Result]
}
let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
    + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
try encoder.encode(Report(date: Date(), quick: quick, machine: machine, results: results))
    .write(to: folder.appendingPathComponent(quick ? "quick.json" : "latest.json"))
