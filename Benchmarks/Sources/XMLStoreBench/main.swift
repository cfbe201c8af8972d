// Benchmarks the XML store against `xmllint --noout` and the binary store on one generated graph.
//
//   swift run -c release XMLStoreBench [approximate MB, default 50] [folder]
//
// Prints a table of the best of three runs of each step (wall clock and CPU time of this process or xmllint).
import Foundation
import ObjectGraph
import ObjectGraphXML

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed-seed generator (SplitMix64), so every run builds the same graph.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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

func sentence(_ count: Int, _ rng: inout SeededGenerator) -> String {
    (0..<count).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " ")
}

/// Writes the seeded graph into a new store of `type` at `url`: records straight into the atomic store's cache,
/// then one full save (a context would spend its time on change tracking, not on the store). Returns the save time.
func generate(type: PersistentStoreType, at url: URL, books: Int) throws -> Double {
    var rng = SeededGenerator(state: 42)
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

struct Timing {
    var wall: Double
    var cpu: Double
}

func cpuSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// The best wall time (and its CPU time) of `runs` runs.
func best(_ runs: Int = 3, _ body: () throws -> Void) rethrows -> Timing {
    var result = Timing(wall: .infinity, cpu: .infinity)
    for _ in 0..<runs {
        let cpu = cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if wall < result.wall { result = Timing(wall: wall, cpu: cpuSeconds() - cpu) }
    }
    return result
}

func xmllint(_ url: URL) throws -> Timing {
    var result = Timing(wall: .infinity, cpu: .infinity)
    for _ in 0..<3 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        process.arguments = ["--noout", url.path]
        let cpu = cpuSeconds(RUSAGE_CHILDREN)
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard process.terminationStatus == 0 else { fatalError("xmllint failed on \(url.path)") }
        if wall < result.wall { result = Timing(wall: wall, cpu: cpuSeconds(RUSAGE_CHILDREN) - cpu) }
    }
    return result
}

/// Loads a store into a fresh coordinator; returns the coordinator and store of the last run.
func load(type: PersistentStoreType, at url: URL) throws -> (Timing, PersistentStoreCoordinator, PersistentStore) {
    var kept: [(PersistentStoreCoordinator, PersistentStore)] = []  // released after timing, not during
    let timing = try best {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
        let store = try coordinator.addPersistentStore(type: type, at: url)
        kept.append((coordinator, store))
    }
    let last = kept.removeLast()
    kept.removeAll()
    return (timing, last.0, last.1)
}

/// Rewrites the whole store (every object) as a save does: encode, temporary file, fsync, rename.
func save(_ coordinator: PersistentStoreCoordinator, _ store: PersistentStore) throws -> Timing {
    try best { try coordinator.setMetadata(coordinator.metadata(for: store), for: store) }
}

XMLStore.register()
if let path = ProcessInfo.processInfo.environment["XMLSTOREBENCH_LOAD_ONLY"] {  // for profiling the load alone
    let (timing, _, _) = try load(type: .xml, at: URL(fileURLWithPath: path))
    print(String(format: "load: %.3f s wall, %.3f s cpu", timing.wall, timing.cpu))
    exit(0)
}
let megabytes = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 50 : 50
let folder = URL(
    fileURLWithPath: CommandLine.arguments.count > 2
        ? CommandLine.arguments[2]
        : NSTemporaryDirectory() + "xmlstorebench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let keepsFiles = CommandLine.arguments.count > 2
defer { if !keepsFiles { try? FileManager.default.removeItem(at: folder) } }
let books = Int(megabytes * 1_000_000 / 700)
let xmlURL = folder.appendingPathComponent("bench.xml")
let binaryURL = folder.appendingPathComponent("bench.bin")

let xmlContextSave = try generate(type: .xml, at: xmlURL, books: books)
let binaryContextSave = try generate(type: .binary, at: binaryURL, books: books)
let xmlBytes = (try FileManager.default.attributesOfItem(atPath: xmlURL.path)[.size] as? Int) ?? 0
let binaryBytes = (try FileManager.default.attributesOfItem(atPath: binaryURL.path)[.size] as? Int) ?? 0

let lint = try xmllint(xmlURL)
let (xmlLoad, xmlCoordinator, xmlStore) = try load(type: .xml, at: xmlURL)
let xmlSave = try save(xmlCoordinator, xmlStore)
let (binaryLoad, binaryCoordinator, binaryStore) = try load(type: .binary, at: binaryURL)
let binarySave = try save(binaryCoordinator, binaryStore)
let objects = (xmlStore as? AtomicStore)?.cacheNodeCount ?? 0

func row(_ name: String, _ timing: Timing, bytes: Int) -> String {
    let mbps = Double(bytes) / 1e6 / timing.wall
    return name.padding(toLength: 34, withPad: " ", startingAt: 0)
        + String(format: "%8.3f s %8.3f s %9.1f MB/s", timing.wall, timing.cpu, mbps)
}

print(
    "graph: \(objects) objects (\(books / 10) authors, \(books) books); "
        + "XML \(xmlBytes) bytes, binary \(binaryBytes) bytes"
)
print(
    "first save of the generated graph: XML \(String(format: "%.3f", xmlContextSave)) s, "
        + "binary \(String(format: "%.3f", binaryContextSave)) s"
)
print("step                                   wall       cpu    throughput (of the XML file size for xmllint/XML)")
print(row("xmllint --noout", lint, bytes: xmlBytes))
print(row("XML store load into coordinator", xmlLoad, bytes: xmlBytes))
print(row("XML store save (full rewrite)", xmlSave, bytes: xmlBytes))
print(row("binary store load into coordinator", binaryLoad, bytes: binaryBytes))
print(row("binary store save (full rewrite)", binarySave, bytes: binaryBytes))
print(
    String(
        format: "XML load throughput / xmllint throughput: %.2fx (wall), %.2fx (cpu)",
        lint.wall / xmlLoad.wall, lint.cpu / xmlLoad.cpu))
print(
    String(
        format: "XML save / XML load: %.2f (wall); binary save / binary load: %.2f", xmlSave.wall / xmlLoad.wall,
        binarySave.wall / binaryLoad.wall))
print(
    String(
        format: "XML / binary: load %.1fx, save %.1fx slower", xmlLoad.wall / binaryLoad.wall,
        xmlSave.wall / binarySave.wall))
