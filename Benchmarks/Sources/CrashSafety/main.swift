// Crash safety: kills a writer process with SIGKILL at random moments and checks that every save it acknowledged
// survived and that the store still opens.
//
//   CrashSafety writer STORE-TYPE PATH
//       Opens (or creates) the store and loops forever: insert one Item (n = i, a payload of a few hundred bytes),
//       save, and only after save returns print "ack i" on stdout (unbuffered).
//   CrashSafety run [--kills N] [--types Binary,XML,SQLite] [--folder DIR] [--seed S] [--json PATH]
//       For each type, N times: spawn the writer, let it run 20-300 ms (fixed-seed RNG), SIGKILL it, read its acks,
//       reopen the store in this process and check that it opens and holds every acknowledged n. With --json, one
//       row per type (lost writes plus torn files, target 0) in the benchmarks' common shape.
import BenchmarkSupport
import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML

#if canImport(Glibc)
    import Glibc
#endif

func makeModel() -> ManagedObjectModel {
    let item = EntityDescription(
        name: "Item",
        properties: [
            AttributeDescription(name: "n", type: .integer64),
            AttributeDescription(name: "payload", type: .string),
        ])
    return ManagedObjectModel(entities: [item])
}

func registerTypes() {
    XMLStore.register()
    SQLiteStore.register()
}

func storeType(_ name: String) -> PersistentStoreType? {
    switch name.lowercased() {
    case "binary": .binary
    case "xml": .xml
    case "sqlite": .sqlite
    default: nil
    }
}

func integer(_ value: Any?) -> Int64? {
    switch value {
    case let value as Int64: value
    case let value as Int: Int64(value)
    case let value as Int32: Int64(value)
    case let value as NSNumber: value.int64Value
    default: nil
    }
}

func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            exit(3)
        }
        offset += written
    }
}

/// Prints a line at once (stdout is a pipe when the script tees it).
func say(_ line: String) {
    writeAll(1, line + "\n")
}

// MARK: Writer

func runWriter(type: PersistentStoreType, path: String) -> Never {
    registerTypes()
    let url = URL(fileURLWithPath: path)
    let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
    do {
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        let last = FetchRequest(entityName: "Item")
        last.sortKeys = [SortKey("n", ascending: false)]
        last.fetchLimit = 1
        var i = (try context.fetch(last).first.flatMap { integer($0.value(forKey: "n")) } ?? 0) + 1
        context.reset()
        let filler = String(repeating: "payload-of-a-crash-safety-item ", count: 10)  // 310 bytes
        while true {
            let item = context.insertNewObject(forEntityName: "Item")
            item.setValue(i, forKey: "n")
            item.setValue("\(i): \(filler)", forKey: "payload")
            try context.assign(item, to: store)
            try context.save()
            writeAll(1, "ack \(i)\n")
            context.reset()
            i += 1
        }
    } catch {
        writeAll(2, "writer: \(error)\n")
        exit(2)
    }
}

// MARK: Harness

struct Spawned {
    let pid: pid_t
    let output: Int32
}

func spawnWriter(type: String, path: String) -> Spawned {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { fatalError("pipe: \(String(cString: strerror(errno)))") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    let executable = CommandLine.arguments[0].contains("/")
        ? CommandLine.arguments[0] : "/proc/self/exe"
    let arguments = [executable, "writer", type, path]
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
    guard result == 0 else { fatalError("posix_spawn: \(String(cString: strerror(result)))") }
    close(fds[1])
    return Spawned(pid: pid, output: fds[0])
}

/// Reads everything the writer printed (until EOF: it is dead) and returns the acknowledged numbers.
func readAcks(_ fd: Int32) -> (acks: [Int64], stderrLike: String) {
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        data += buffer[0..<count]
    }
    close(fd)
    var acks: [Int64] = []
    var other = ""
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    lines.removeLast()  // the part after the last newline: empty, or a line cut by the kill (not acknowledged)
    for line in lines {
        if line.hasPrefix("ack "), let n = Int64(line.dropFirst(4)) { acks.append(n) } else { other += line + "\n" }
    }
    return (acks, other)
}

struct Figures {
    var kills = 0
    var killsWithoutAck = 0
    var acknowledged = 0
    var lost = 0
    var lostNumbers: [Int64] = []
    var torn = 0
    var openFailures: [String] = []
    var writerExitedEarly: [String] = []
    var itemsAtEnd = 0
    var duplicates = 0
    var leftoverFiles: [String] = []
    var seconds = 0.0
}

/// Opens the store in this process with a fresh coordinator and returns every n, or the error.
func reopen(type: PersistentStoreType, url: URL) -> Result<[Int64], any Error> {
    Result {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
        let store = try coordinator.addPersistentStore(type: type, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Item")
        let objects = try context.fetch(request)
        return objects.map { integer($0.value(forKey: "n")) ?? -1 }
    }
}

/// Runs the kills for every type; returns one row per type (a type it does not know gives an error row).
func runHarness(kills: Int, types: [String], folder: URL, seed: UInt64) -> [ResultRow] {
    registerTypes()
    var rows: [ResultRow] = []
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for name in types {
        guard let type = storeType(name) else {
            say("unknown store type \(name)")
            rows.append(ResultRow.failed("crash safety: \(name)", target: .atMost(0),
                                         error: CrashSafetyError(description: "unknown store type \(name)")))
            continue
        }
        var rng = SplitMix(seed: seed)
        let url = folder.appendingPathComponent("crash-\(type.rawValue).store")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        var figures = Figures()
        var acknowledged = Set<Int64>()
        let start = Date()
        for round in 0..<kills {
            let child = spawnWriter(type: type.rawValue, path: url.path)
            let delay = 20_000 + Int(rng.next() % 280_001)  // 20-300 ms, in microseconds
            usleep(UInt32(delay))
            var status: Int32 = 0
            let early = waitpid(child.pid, &status, WNOHANG)
            if early == 0 {
                kill(child.pid, SIGKILL)
                while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
            }
            let (acks, other) = readAcks(child.output)
            if early != 0 {
                figures.writerExitedEarly.append("round \(round): writer exited by itself (status \(status)): \(other)")
            }
            figures.kills += 1
            if acks.isEmpty { figures.killsWithoutAck += 1 }
            acknowledged.formUnion(acks)
            figures.acknowledged += acks.count
            switch reopen(type: type, url: url) {
            case .failure(let error):
                figures.torn += 1
                figures.openFailures.append("after kill \(round + 1) (\(acks.count) acks, \(delay / 1000) ms): \(error)")
                say("  \(type): TORN after kill \(round + 1): \(error)")
                // Keep going on a copy-free basis: the next writer will hit the same file and report it too.
            case .success(let numbers):
                let present = Set(numbers)
                figures.itemsAtEnd = numbers.count
                figures.duplicates = numbers.count - present.count
                let missing = acknowledged.subtracting(present)
                if !missing.isEmpty {
                    let newlyLost = missing.subtracting(figures.lostNumbers)
                    figures.lost += newlyLost.count
                    figures.lostNumbers += newlyLost.sorted()
                    say("  \(type): LOST after kill \(round + 1): \(newlyLost.sorted().prefix(20))")
                }
            }
        }
        figures.seconds = Date().timeIntervalSince(start)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        figures.leftoverFiles = names.filter { $0.hasPrefix(".\(url.lastPathComponent).") }.sorted()
        let good = figures.lost == 0 && figures.torn == 0
        let failures = Double(figures.lost + figures.torn)
        rows.append(ResultRow(
            workload: "crash safety: \(type.rawValue) store, writer SIGKILLed at random moments",
            ours: Figure(median: failures, minimum: failures, maximum: failures, runs: figures.kills,
                         unit: "lost writes or torn files"),
            target: .atMost(0),
            note: "\(figures.kills) kills, \(figures.acknowledged) acknowledged writes, \(figures.lost) lost, "
                + "\(figures.torn) torn, \(figures.leftoverFiles.count) leftover temporary files, "
                + String(format: "%.1f s", figures.seconds)))
        say("""
            \(type.rawValue): \(good ? "OK" : "FAILED")
              kills:                 \(figures.kills) (\(figures.killsWithoutAck) before the first ack)
              acknowledged writes:   \(figures.acknowledged)
              lost writes:           \(figures.lost)\(figures.lostNumbers.isEmpty ? "" : " \(figures.lostNumbers.prefix(20))")
              torn files:            \(figures.torn)
              items in the store:    \(figures.itemsAtEnd) (duplicate n: \(figures.duplicates))
              leftover temp files:   \(figures.leftoverFiles.count)
              time:                  \(String(format: "%.1f", figures.seconds)) s
            """)
        for failure in figures.openFailures.prefix(10) { say("  open failure: \(failure)") }
        for early in figures.writerExitedEarly.prefix(10) { say("  \(early)") }
    }
    return rows
}

struct CrashSafetyError: Error, CustomStringConvertible {
    var description: String
}

// MARK: Main

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "writer":
    guard arguments.count == 3, let type = storeType(arguments[1]) else {
        writeAll(2, "usage: CrashSafety writer Binary|XML|SQLite PATH\n")
        exit(64)
    }
    runWriter(type: type, path: arguments[2])
case "run":
    var kills = 200
    var types = ["Binary", "XML", "SQLite"]
    var folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-safety-\(getpid())")
    var seed: UInt64 = 2026
    var json: URL?
    var index = 1
    while index < arguments.count {
        let value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch arguments[index] {
        case "--kills": kills = Int(value) ?? kills
        case "--types": types = value.split(separator: ",").map(String.init)
        case "--folder": folder = URL(fileURLWithPath: value)
        case "--seed": seed = UInt64(value) ?? seed
        case "--json": json = URL(fileURLWithPath: value)
        default:
            say("unknown option \(arguments[index])")
            exit(64)
        }
        index += 2
    }
    say("crash safety: \(kills) kills per type, types \(types.joined(separator: ",")), folder \(folder.path)")
    let rows = runHarness(kills: kills, types: types, folder: folder, seed: seed)
    say("")
    ResultTable.print(rows)
    if let json {
        do {
            try ResultFile(tool: "CrashSafety", quick: false, rows: rows).write(to: json)
        } catch {
            say("cannot write \(json.path): \(error)")
            exit(1)
        }
    }
    exit(rows.allSatisfy { $0.pass == true } ? 0 : 1)
default:
    say("usage: CrashSafety writer STORE-TYPE PATH | CrashSafety run [--kills N] [--types Binary,XML,SQLite] "
            + "[--json PATH]")
    exit(64)
}
