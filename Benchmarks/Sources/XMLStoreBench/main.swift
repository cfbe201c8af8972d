// Benchmarks the XML store against `xmllint --noout` and the binary store on one generated graph, and the frab
// reader on FOSDEM 2021's schedule against `xmllint --noout` on the same file.
//
//   swift run -c release --package-path Benchmarks XMLStoreBench [approximate MB, default 50] [folder] [--json PATH]
//
// Each step runs once to warm up, then until stable (3 to 7 runs; the XML load alternates with xmllint); the table
// gives the median wall and CPU time (this process's, or xmllint's), and the rows their median and spread.
import BenchmarkSupport
import Foundation
import ObjectGraph
import ObjectGraphXML
import Schedules

#if canImport(Glibc)
    import Glibc
#endif

func makeModel() -> ManagedObjectModel {
    let author = EntityDescription(
        name: "Author",
        properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "born", type: .date),
            AttributeDescription(name: "rating", type: .double),
            RelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true),
        ])
    let book = EntityDescription(
        name: "Book",
        properties: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "summary", type: .string),
            AttributeDescription(name: "pages", type: .integer32),
            AttributeDescription(name: "isbn", type: .integer64),
            AttributeDescription(name: "published", type: .date),
            AttributeDescription(name: "price", type: .double),
            RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
        ])
    return ManagedObjectModel(entities: [author, book])
}

let words = [
    "alpha", "river", "stone", "garden", "night", "engine", "paper", "silver", "north", "quiet", "harbor",
    "lantern", "copper", "meadow", "signal", "winter", "orchard", "cipher", "velvet", "summit",
]

func sentence(_ count: Int, _ rng: inout SplitMix) -> String {
    (0..<count).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " ")
}

/// Writes the seeded graph into a new store of `type` at `url`: records straight into the atomic store's cache,
/// then one full save (a context would spend its time on change tracking, not on the store). Returns the save time.
func generate(type: PersistentStoreType, at url: URL, books: Int) throws -> Double {
    var rng = SplitMix(seed: 42)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
    let store = try coordinator.addPersistentStore(type: type, at: url) as! AtomicStore
    let authorCount = max(1, books / 10)
    var records: [StoreRecord] = []
    var booksOfAuthor = [[ManagedObjectID]](repeating: [], count: authorCount)
    let authorIDs = (0..<authorCount).map { store.objectID(forEntityName: "Author", referenceKey: Int64($0 + 1)) }
    for index in 0..<books {
        let id = store.objectID(forEntityName: "Book", referenceKey: Int64(authorCount + index + 1))
        let author = Int(rng.next() % UInt64(authorCount))
        booksOfAuthor[author].append(id)
        records.append(
            StoreRecord(
                objectID: id,
                values: [
                    "title": "Book \(index): \(sentence(4, &rng))",
                    "summary": sentence(12, &rng) + " & <more>",
                    "pages": Int(rng.next() % 2000),
                    "isbn": Int(rng.next() % 9_999_999_999_999),
                    "published": Date(timeIntervalSinceReferenceDate: Double(rng.next() % 700_000_000_000) / 1000),
                    "price": Double(rng.next() % 100_000) / 100,
                    "author": authorIDs[author],
                ]))
    }
    for (index, id) in authorIDs.enumerated() {
        var values: [String: any Sendable] = [
            "name": "Author \(index) \(sentence(2, &rng))",
            "born": Date(timeIntervalSinceReferenceDate: -Double(rng.next() % 2_000_000_000)),
            "rating": Double(rng.next() % 10_000) / 100,
        ]
        if !booksOfAuthor[index].isEmpty { values["books"] = booksOfAuthor[index] }
        records.append(StoreRecord(objectID: id, values: values))
    }
    store.addCacheNodes(records)
    let start = Date()
    try coordinator.setMetadata(coordinator.metadata(for: store), for: store)
    return Date().timeIntervalSince(start)
}

func cpuSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// Wall and CPU seconds of every run of one step, in order (the warm-up's first).
final class Step {
    var walls: [Double] = []
    var cpus: [Double] = []

    /// Runs `body`, records its wall time and the CPU time of `who`, and returns the wall time.
    func run(_ who: __rusage_who = RUSAGE_SELF, _ body: () throws -> Void) rethrows -> Double {
        let cpu = cpuSeconds(who)
        let wall = try Figure.seconds(of: body)
        walls.append(wall)
        cpus.append(cpuSeconds(who) - cpu)
        return wall
    }

    /// The medians of the counted runs (the warm-up left out).
    var medianWall: Double { Figure(samples: Array(walls.dropFirst()), unit: "s").median }
    var medianCPU: Double { Figure(samples: Array(cpus.dropFirst()), unit: "s").median }
}

/// Why a step could not run.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The `xmllint` of `PATH` (Debian's libxml2-utils), or `nil` when it is not installed: its rows then say skipped.
let xmllintURL: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    .map { URL(fileURLWithPath: String($0)).appendingPathComponent("xmllint") }
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }
let xmllintMissing = "xmllint is not installed (Debian: apt-get install libxml2-utils)"

func xmllint(_ url: URL, _ step: Step) throws -> Double {
    guard let xmllintURL else { throw BenchError(xmllintMissing) }
    return try step.run(RUSAGE_CHILDREN) {
        let process = Process()
        process.executableURL = xmllintURL
        process.arguments = ["--noout", url.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("xmllint failed on \(url.path)") }
    }
}

/// Loads a store into a fresh coordinator, which `loaded` keeps (the previous one is released before the clock
/// starts, so its deallocation is not timed).
var loaded: (coordinator: PersistentStoreCoordinator, store: PersistentStore)?
@MainActor
func load(type: PersistentStoreType, at url: URL, _ step: Step) throws -> Double {
    loaded = nil
    var result: (PersistentStoreCoordinator, PersistentStore)?
    let wall = try step.run {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
        result = (coordinator, try coordinator.addPersistentStore(type: type, at: url))
    }
    loaded = result
    return wall
}

/// Rewrites the whole store (every object) as a save does: encode, temporary file, fsync, rename.
@MainActor
func save(_ step: Step) throws -> Double {
    let (coordinator, store) = loaded!
    return try step.run { try coordinator.setMetadata(coordinator.metadata(for: store), for: store) }
}

let arguments = Arguments()
XMLStore.register()
ScheduleFileStore.registerTypes()
// For profiling a load alone: XMLSTOREBENCH_LOAD_ONLY=FILE (a `.bin` file is a binary store), loaded
// XMLSTOREBENCH_LOADS times (default 1).
if let path = ProcessInfo.processInfo.environment["XMLSTOREBENCH_LOAD_ONLY"] {
    let type: PersistentStoreType = path.hasSuffix(".bin") ? .binary : .xml
    let loads = Int(ProcessInfo.processInfo.environment["XMLSTOREBENCH_LOADS"] ?? "") ?? 1
    let step = Step()
    for _ in 0..<loads {
        let wall = try load(type: type, at: URL(fileURLWithPath: path), step)
        print(String(format: "load: %.3f s wall, %.3f s cpu", wall, step.cpus.last!))
    }
    exit(0)
}
let positional = arguments.positional
let megabytes = positional.first.flatMap(Double.init) ?? 50
let quick = arguments.quick
let folder = URL(
    fileURLWithPath: positional.count > 1 ? positional[1] : NSTemporaryDirectory() + "xmlstorebench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let keepsFiles = positional.count > 1
defer { if !keepsFiles { try? FileManager.default.removeItem(at: folder) } }
let books = Int(megabytes * 1_000_000 / 700)
let xmlURL = folder.appendingPathComponent("bench.xml")
let binaryURL = folder.appendingPathComponent("bench.bin")

let xmlContextSave = try generate(type: .xml, at: xmlURL, books: books)
let binaryContextSave = try generate(type: .binary, at: binaryURL, books: books)
let xmlBytes = (try FileManager.default.attributesOfItem(atPath: xmlURL.path)[.size] as? Int) ?? 0
let binaryBytes = (try FileManager.default.attributesOfItem(atPath: binaryURL.path)[.size] as? Int) ?? 0

let runs = Figure.Runs.long(quick: quick)
let lintStep = Step(), xmlLoadStep = Step(), xmlSaveStep = Step(), binaryLoadStep = Step(), binarySaveStep = Step()
let xmlLoad: Figure, lint: Figure?
if xmllintURL != nil {
    (xmlLoad, lint) = try Figure.samplingPair(
        runs, unit: "s", ours: { try load(type: .xml, at: xmlURL, xmlLoadStep) },
        anchor: { try xmllint(xmlURL, lintStep) })
} else {
    xmlLoad = try Figure.sampling(runs, unit: "s") { try load(type: .xml, at: xmlURL, xmlLoadStep) }
    lint = nil
}
let objects = (loaded?.store as? AtomicStore)?.cacheNodeCount ?? 0
let xmlSave = try Figure.sampling(runs, unit: "s") { try save(xmlSaveStep) }
let binaryLoad = try Figure.sampling(runs, unit: "s") { try load(type: .binary, at: binaryURL, binaryLoadStep) }
let binarySave = try Figure.sampling(runs, unit: "s") { try save(binarySaveStep) }
loaded = nil

// FOSDEM 2021's frab file: the schedule reader (through its store type) against xmllint on the same file.
var frabRow: ResultRow
let frabWorkload = "frab XML load, FOSDEM 2021 vs xmllint --noout (same file)"
let frabLintStep = Step(), frabStep = Step()
if xmllintURL == nil {
    frabRow = ResultRow.skipped(frabWorkload, target: .atMost(0.05), unit: "s", reason: xmllintMissing)
} else if let fosdem = SharedSchedules.url(SharedSchedules.fosdem2021) {
    let (frab, frabLint) = try Figure.samplingPair(Figure.Runs.standard(quick: quick), unit: "s", ours: {
        try frabStep.run {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ScheduleModel.make())
            try coordinator.addPersistentStore(type: .frabXML, configurationName: "Schedule", at: fosdem,
                                               options: [.readOnly: true])
        }
    }, anchor: { try xmllint(fosdem, frabLintStep) })
    frabRow = ResultRow(workload: frabWorkload, ours: frab, anchor: frabLint, target: .atMost(0.05),
                        note: "1.66 MB, 773 sessions, read into a coordinator")
} else {
    frabRow = ResultRow.skipped(frabWorkload, target: .atMost(0.05), unit: "s",
                                reason: "\(SharedSchedules.folder.path)/\(SharedSchedules.fosdem2021) is absent")
}

func line(_ name: String, _ step: Step, bytes: Int) -> String {
    let mbps = Double(bytes) / 1e6 / step.medianWall
    return name.padding(toLength: 34, withPad: " ", startingAt: 0)
        + String(format: "%8.3f s %8.3f s %9.1f MB/s", step.medianWall, step.medianCPU, mbps)
}

print(
    "graph: \(objects) objects (\(books / 10) authors, \(books) books); "
        + "XML \(xmlBytes) bytes, binary \(binaryBytes) bytes"
)
print(
    "first save of the generated graph: XML \(String(format: "%.3f", xmlContextSave)) s, "
        + "binary \(String(format: "%.3f", binaryContextSave)) s"
)
print("medians of \(runs.minimum) to \(runs.maximum) runs after a warm-up")
print("step                                   wall       cpu    throughput (of the XML file size for xmllint/XML)")
if lint != nil { print(line("xmllint --noout", lintStep, bytes: xmlBytes)) }
print(line("XML store load into coordinator", xmlLoadStep, bytes: xmlBytes))
print(line("XML store save (full rewrite)", xmlSaveStep, bytes: xmlBytes))
print(line("binary store load into coordinator", binaryLoadStep, bytes: binaryBytes))
print(line("binary store save (full rewrite)", binarySaveStep, bytes: binaryBytes))
if lint != nil {
    print(
        String(
            format: "XML load throughput / xmllint throughput: %.2fx (wall), %.2fx (cpu)",
            lintStep.medianWall / xmlLoadStep.medianWall, lintStep.medianCPU / xmlLoadStep.medianCPU))
}
print(
    String(
        format: "XML save / XML load: %.2f (wall); binary save / binary load: %.2f", xmlSave.median / xmlLoad.median,
        binarySave.median / binaryLoad.median))
print(
    String(
        format: "XML / binary: load %.1fx, save %.1fx slower", xmlLoad.median / binaryLoad.median,
        xmlSave.median / binarySave.median))
if frabStep.walls.count > 1 {
    print(String(format: "frab XML, FOSDEM 2021: load %.1f ms (cpu %.1f ms); xmllint --noout %.1f ms",
                 frabStep.medianWall * 1000, frabStep.medianCPU * 1000, frabLintStep.medianWall * 1000))
}
print("")

let megabytesOfXML = Double(xmlBytes) / 1e6
let graph = String(format: "%.1f MB of XML, %.1f MB binary, %d objects", megabytesOfXML, Double(binaryBytes) / 1e6,
                   objects)
let lintWorkload = "XML store load vs xmllint --noout (same file)"
let rows = [
    lint.map { lint in
        ResultRow(workload: lintWorkload, ours: xmlLoad.rate(items: megabytesOfXML, unit: "MB/s"),
                  anchor: lint.rate(items: megabytesOfXML, unit: "MB/s"), target: .ratioAtLeast(0.5),
                  note: graph + "; rates of the XML file's size")
    } ?? ResultRow.skipped(lintWorkload, target: .ratioAtLeast(0.5), reason: xmllintMissing),
    ResultRow(workload: "XML store save (full rewrite) vs XML store load", ours: xmlSave, anchor: xmlLoad,
              target: .ratioAtMost(2), note: graph),
    ResultRow(workload: "binary store load vs XML store load (same graph)", ours: binaryLoad, anchor: xmlLoad,
              target: .ratioAtMost(0.2), note: graph + "; ratio ≤ 0.2: at least 5x faster"),
    ResultRow(workload: "binary store save vs XML store save (same graph)", ours: binarySave, anchor: xmlSave,
              target: .none, note: graph),
    ResultRow(workload: "binary store save (full rewrite) vs binary store load", ours: binarySave,
              anchor: binaryLoad, target: .ratioAtMost(2), note: graph),
    frabRow,
]
ResultTable.print(rows)
if let url = arguments.jsonURL {
    try ResultFile(tool: "XMLStoreBench", quick: quick, rows: rows).write(to: url)
}
