import AlmanacDaemon
import AlmanacWire
import Foundation
import ObjectGraph
import Schedules
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile files dropped into the inbox: each must be refused with a clear reason, leave the engine answering as
/// before, show its error in the `stores` listing, never hang, never leak a local file into a reply, and keep the
/// process's memory bounded.
@Suite("Hostile files")
struct HostileFileTests {
    // MARK: Cases over every format

    @Test(arguments: HostileFormat.allCases)
    func emptyFile(_ format: HostileFormat) throws {
        try check("empty \(format)", format.name("empty")) { url, _ in
            try Data().write(to: url)
        }
    }

    @Test(arguments: HostileFormat.allCases, [0.02, 0.33, 0.5, 0.9, 0.999])
    func truncatedSample(_ format: HostileFormat, at fraction: Double) throws {
        let sample = try format.sample()
        let length = max(1, min(sample.count - 1, Int(Double(sample.count) * fraction)))
        // SQLite reads a short last page as zeros: cutting only zero bytes leaves the same database, which may load.
        let onlyZerosCut = format == .sqlite && sample.suffix(from: length).allSatisfy { $0 == 0 }
        try check("\(format) cut at \(fraction)", format.name("cut"), mayLoad: onlyZerosCut) { url, _ in
            try sample.prefix(length).write(to: url)
        }
    }

    @Test(arguments: HostileFormat.allCases)
    func randomBytesBehindTheMagic(_ format: HostileFormat) throws {
        try check("random bytes behind the \(format) magic", format.name("random")) { url, _ in
            var generator = SplitMix(state: 0xA1B2_C3D4)
            let noise = (0..<65_536).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try (format.magic() + noise).write(to: url)
        }
    }

    @Test(arguments: HostileFormat.allCases)
    func invalidUTF8(_ format: HostileFormat) throws {
        // SQLite does not check text encoding, and the iCalendar lexer decodes bad bytes as U+FFFD by design: both
        // may load. The other formats must refuse.
        try check("invalid UTF-8 in \(format)", format.name("utf8"), mayLoad: format == .sqlite || format == .iCalendar)
        { url, _ in
            var sample = try format.sample()
            let bad: [UInt8] = [0xC3, 0x28, 0xFF, 0xFE, 0xC0, 0xAF]
            switch format {
            case .frabXML, .coreDataXML:
                sample = sample.inserting(bad, after: format == .frabXML ? "<title>" : "type=\"string\">")
            case .frabJSON: sample = sample.inserting(bad, after: "\"title\": \"")
            case .iCalendar: sample = sample.inserting(bad, after: "SUMMARY:")
            case .binary: sample.replaceSubrange(sample.count / 2..<sample.count / 2 + 1, with: [0xFF])
            case .sqlite:
                let at = try #require(sample.range(of: Data("Lunch".utf8)))
                sample.replaceSubrange(at.lowerBound..<at.lowerBound + 1, with: [0xFF])
            }
            try sample.write(to: url)
        }
    }

    @Test(arguments: HostileFormat.allCases.filter { $0 != .binary })
    func wrongEncodingDeclared(_ format: HostileFormat) throws {
        try check("wrong encoding declared for \(format)", format.name("encoding")) { url, _ in
            var sample = try format.sample()
            switch format {
            case .frabXML, .coreDataXML:
                // Declared UTF-16, written as UTF-8.
                sample = sample.replacing("encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
            case .frabJSON, .iCalendar:
                // UTF-16 with its byte-order mark: not the UTF-8 both formats are read as.
                let text = try #require(String(data: sample, encoding: .utf8))
                sample = try #require(text.data(using: .utf16))
            case .sqlite:
                // The header's text encoding (offset 56) says UTF-16be; the text is UTF-8.
                sample.replaceSubrange(56..<60, with: [0, 0, 0, 3])
            case .binary: break
            }
            try sample.write(to: url)
        }
    }

    @Test(arguments: HostileFormat.allCases)
    func twoHundredMegabytes(_ format: HostileFormat) throws {
        let start = Date()
        let reason = try check("200 MB \(format)", format.name("huge")) { url, _ in
            try format.magic().write(to: url)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 200 * 1024 * 1024)
            try handle.close()
        }
        #expect(Date().timeIntervalSince(start) < 5, "refusing a 200 MB file must not read it")
        #expect(reason?.contains("larger than") == true, "\(reason ?? "nil")")
    }

    /// `maximumFileSize` in almanacd.json is the limit for the schedule reader too: it refused files past its own
    /// default (64 MiB) that the setting let through. Checked on the options a schedule file's store is read with
    /// (a file past 64 MiB would make this process's memory, which the other cases here bound, grow: the scale
    /// benchmark attaches a 293 MB one).
    @Test func theDaemonsFileSizeSettingIsTheReadersLimitToo() throws {
        for (settings, limit) in [(#"{"maximumFileSize": 134217728}"#, 134_217_728), ("{}", 64 << 20)] {
            let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"], settings: settings)
            defer { fixture.remove() }
            let entries = fixture.core.library.entriesByPath
            let entry = try #require(entries.first { $0.url.lastPathComponent.hasSuffix(".xml") })
            let store = try #require(entry.store)
            let reader = store.options[.scheduleReaderConfiguration] as? ScheduleReaderConfiguration
            #expect(reader?.limits.maxInputBytes == limit, "\(settings)")
        }
    }

    // MARK: XML and JSON

    @Test(arguments: [HostileFormat.frabXML, .coreDataXML, .frabJSON])
    func hundredThousandLevelsOfNesting(_ format: HostileFormat) throws {
        try check("100k levels in \(format)", format.name("deep")) { url, _ in
            let depth = 100_000
            let text: String
            switch format {
            case .frabJSON:
                text = "{\"schedule\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
                    + "}"
            default:
                let root = format == .frabXML ? "schedule" : "database"
                text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<\(root)>" + String(repeating: "<a>", count: depth)
                    + String(repeating: "</a>", count: depth) + "</\(root)>\n"
            }
            try Data(text.utf8).write(to: url)
        }
    }

    @Test func deepNestingInsideAValidXMLStore() throws {
        try check("100k levels inside the first <object>", "deep-inside.xml") { url, _ in
            var text = try #require(String(data: HostileFormat.coreDataXML.sample(), encoding: .utf8))
            let object = try #require(text.range(of: "<object "))
            let end = try #require(text.range(of: ">", range: object.upperBound..<text.endIndex))
            text.insert(contentsOf: String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000),
                        at: end.upperBound)
            try Data(text.utf8).write(to: url)
        }
    }

    @Test(arguments: [HostileFormat.frabXML, .coreDataXML])
    func billionLaughs(_ format: HostileFormat) throws {
        try check("billion laughs in \(format)", format.name("laughs")) { url, _ in
            var entities = "<!ENTITY lol0 \"lol\">"
            for level in 1...9 {
                entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
            }
            try format.withDoctype(entities, reference: "&lol9;").write(to: url)
        }
    }

    @Test(arguments: [HostileFormat.frabXML, .coreDataXML], ["file:///etc/passwd", "http://127.0.0.1:9/almanac-xxe"])
    func externalEntities(_ format: HostileFormat, system: String) throws {
        try check("external entity \(system) in \(format)", format.name("xxe")) { url, _ in
            try format.withDoctype("<!ENTITY xxe SYSTEM \"\(system)\">", reference: "&xxe;").write(to: url)
        }
        try check("external parameter entity \(system) in \(format)", format.name("xxp")) { url, _ in
            try format.withDoctype("<!ENTITY % xxp SYSTEM \"\(system)\"> %xxp;", reference: "x").write(to: url)
        }
    }

    // MARK: Stores

    @Test func sqliteWithAForeignSchema() throws {
        try check("SQLite with table t(x)", "foreign.sqlite") { url, _ in
            // What `sqlite3 f.db 'CREATE TABLE t(x); INSERT INTO t VALUES(1)'` writes: two 4 KiB pages.
            var bytes = [UInt8](repeating: 0, count: 8192)
            for (offset, hex) in foreignSQLitePages {
                let chunk = stride(from: 0, to: hex.count, by: 2).map { start -> UInt8 in
                    let from = hex.index(hex.startIndex, offsetBy: start)
                    return UInt8(hex[from..<hex.index(from, offsetBy: 2)], radix: 16)!
                }
                bytes.replaceSubrange(offset..<offset + chunk.count, with: chunk)
            }
            try Data(bytes).write(to: url)
        }
    }

    @Test(arguments: [HostileFormat.coreDataXML, .binary, .sqlite])
    func storeOfAnotherModel(_ format: HostileFormat) throws {
        try check("\(format) store of another model", format.name("othermodel")) { url, root in
            let scratch = root.appendingPathComponent("other-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let file = scratch.appendingPathComponent(url.lastPathComponent)
            let gadget = EntityDescription(name: "Gadget", properties: [
                AttributeDescription(name: "label", type: .string), AttributeDescription(name: "weight", type: .double),
            ])
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [gadget]))
            let type: PersistentStoreType = switch format {
            case .coreDataXML: .xml
            case .sqlite: .sqlite
            default: .binary
            }
            let store = try coordinator.addPersistentStore(
                type: type, at: file,
                options: [PersistentStoreOptionKey(rawValue: "ObjectGraphSQLiteRollbackJournalOption"): true])
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<3 {
                let object = context.insertNewObject(forEntityName: "Gadget")
                object.setValue("gadget \(index)", forKey: "label")
                object.setValue(Double(index), forKey: "weight")
            }
            try context.save()
            try coordinator.remove(store)
            try FileManager.default.copyItem(at: file, to: url)
        }
    }

    // MARK: File system

    @Test(arguments: ["outside", "passwd"])
    func symlinkOutsideTheFolder(_ target: String) throws {
        try check("symlink to \(target)", "link-\(target).xml") { url, root in
            let destination: URL
            if target == "passwd" {
                destination = URL(fileURLWithPath: "/etc/passwd")
            } else {
                // A perfectly good schedule, but outside the watched folder.
                let outside = root.appendingPathComponent("outside")
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                destination = outside.appendingPathComponent("devcon-2026-day1.xml")
                try FileManager.default.copyItem(at: CoreFixture.samples.appendingPathComponent("devcon-2026-day1.xml"),
                                                 to: destination)
            }
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: destination)
        }
    }

    @Test func fifo() throws {
        try check("FIFO", "pipe.xml") { url, _ in
            #expect(mkfifo(url.path, 0o644) == 0)
        }
    }

    @Test(.enabled(if: geteuid() != 0, "running as root: root reads a file without read permission anyway"))
    func fileWithoutReadPermission() throws {
        try check("no read permission", "secret.xml") { url, _ in
            try FileManager.default.copyItem(at: CoreFixture.samples.appendingPathComponent("devcon-2026-day1.xml"),
                                             to: url)
            #expect(chmod(url.path, 0) == 0)
        }
    }

    // MARK: The check

    /// Creates a hostile file with `make` in a fresh fixture's inbox, attaches it, and checks that it is refused
    /// cleanly. Returns the reason.
    @discardableResult
    func check(_ name: String, _ fileName: String, mayLoad: Bool = false,
               _ make: (URL, URL) throws -> Void) throws -> String?
    {
        _ = Memory.baseline
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let url = fixture.inbox.appendingPathComponent(fileName)
        try make(url, fixture.root)
        let before = try fixture.request("count", ["entity": "Session"])["count"]

        let started = Date()
        let outcome = attachBounded(fixture.core.library, url, seconds: 60)
        let seconds = Date().timeIntervalSince(started)
        print("HOSTILE \(name): \(outcome.map { "\($0)" } ?? "HUNG") in \(String(format: "%.3f", seconds)) s")
        guard let outcome else {
            Issue.record("\(name): attach did not return within 60 s")
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) == nil {
                // Unblock a reader stuck on a FIFO.
                let fd = open(url.path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
            return nil
        }
        var reason: String?
        if case .failed(let message) = outcome {
            reason = message
            #expect(!message.isEmpty, "\(name): the reason is empty")
            #expect(message.count < 2000, "\(name): the reason is \(message.count) characters long")
            #expect(!message.contains("root:"), "\(name): the reason leaks a local file: \(message)")
        } else if !mayLoad {
            Issue.record("\(name): not refused: \(outcome)")
        }

        // The engine still answers, with the same sessions.
        let after = try fixture.request("count", ["entity": "Session"])["count"]
        if reason != nil { #expect(after == before, "\(name): the session count changed") }

        // The listing shows the file with its error.
        let stores = try fixture.request("stores")
        let entry = stores["stores"]?.arrayValue?.first { $0["file"]?.stringValue == url.standardizedFileURL.path }
        if let reason {
            #expect(entry?["error"]?.stringValue == reason, "\(name): the stores listing lacks the error")
        }

        // No reply leaks a local file.
        let sessions = try fixture.request("fetch", [
            "entity": "Session", "properties": ["title", "subtitle", "abstract", "details"], "limit": 10_000,
        ])
        for reply in [stores, sessions] {
            #expect(!JSONValue.object(reply).encodedString().contains("root:"), "\(name): a reply contains root:")
        }

        let growth = Memory.residentBytes() - Memory.baseline
        if growth > 200 * 1024 * 1024 {
            Issue.record("\(name): resident memory grew by \(growth / 1_048_576) MB since the suite started")
        }
        return reason
    }

    /// Attaches on another thread and waits at most `seconds`: `nil` when it did not return.
    func attachBounded(_ library: ScheduleLibrary, _ url: URL, seconds: Double) -> ScheduleLibrary.Outcome? {
        let box = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.set(library.attach(url))
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.get()
    }

    @Test func residentMemoryStaysBounded() throws {
        // The suite's own total, read at the end of whichever test runs last is recorded by `check`; this one
        // repeats the heaviest inputs to catch a per-attach leak.
        _ = Memory.baseline
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let deep = fixture.inbox.appendingPathComponent("deep.json")
        try Data(("{\"schedule\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            + "}").utf8).write(to: deep)
        let laughs = fixture.inbox.appendingPathComponent("laughs.xml")
        var entities = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        try HostileFormat.frabXML.withDoctype(entities, reference: "&lol9;").write(to: laughs)
        let start = Memory.residentBytes()
        for _ in 0..<20 {
            for url in [deep, laughs] {
                if case .failed = fixture.core.library.attach(url) {} else { Issue.record("\(url.lastPathComponent) loaded") }
            }
        }
        let growth = Memory.residentBytes() - start
        print("HOSTILE memory: 40 heavy attaches grew resident memory by \(growth / 1024) KiB; since the suite "
            + "started: \((Memory.residentBytes() - Memory.baseline) / 1024) KiB, peak \(Memory.peakBytes() / 1024) KiB")
        #expect(growth < 200 * 1024 * 1024)
    }
}

// MARK: Support

/// The formats the library reads, each with a sample in `Data/schedules`.
enum HostileFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    case frabXML, frabJSON, iCalendar, coreDataXML, binary, sqlite

    var description: String { rawValue }

    var sampleName: String {
        switch self {
        case .frabXML: "swift-server-days-2026.xml"
        case .frabJSON: "plumbing-camp-2026.json"
        case .iCalendar: "open-data-evening-2026.ics"
        case .coreDataXML: "devcon-2026-day1.xml"
        case .binary: "community-meetup-2026.binary"
        case .sqlite: "lunch-talks-2026.sqlite"
        }
    }

    func name(_ prefix: String) -> String {
        "\(prefix)-\(rawValue).\(sampleName.split(separator: ".").last!)"
    }

    func sample() throws -> Data {
        try Data(contentsOf: CoreFixture.samples.appendingPathComponent(sampleName))
    }

    /// What the sniffer recognizes the format by.
    func magic() throws -> Data {
        switch self {
        case .frabXML: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<schedule>".utf8)
        case .frabJSON: Data("{\"schedule\": ".utf8)
        case .iCalendar: Data("BEGIN:VCALENDAR\r\n".utf8)
        case .coreDataXML: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<database>".utf8)
        case .binary: try sample().prefix(8)
        case .sqlite: try sample().prefix(100)  // the whole database header
        }
    }

    /// The sample with an internal DTD subset, and `reference` in place of its first title (XML formats only).
    func withDoctype(_ subset: String, reference: String) throws -> Data {
        var text = try #require(String(data: sample(), encoding: .utf8))
        let root = self == .frabXML ? "schedule" : "database"
        if let old = text.range(of: "<!DOCTYPE[^>]*>", options: .regularExpression) { text.removeSubrange(old) }
        let declarationEnd = try #require(text.range(of: "?>"))
        text.insert(contentsOf: "\n<!DOCTYPE \(root) [\(subset)]>", at: declarationEnd.upperBound)
        let open = self == .frabXML ? "<title>" : "type=\"string\">"
        let start = try #require(text.range(of: open))
        let end = try #require(text.range(of: "<", range: start.upperBound..<text.endIndex))
        text.replaceSubrange(start.upperBound..<end.lowerBound, with: reference)
        return Data(text.utf8)
    }
}

extension Data {
    func inserting(_ bytes: [UInt8], after marker: String) -> Data {
        guard let at = range(of: Data(marker.utf8)) else { return self + bytes }
        var copy = self
        copy.insert(contentsOf: bytes, at: at.upperBound)
        return copy
    }

    func replacing(_ old: String, with new: String) -> Data {
        guard let at = range(of: Data(old.utf8)) else { return self }
        var copy = self
        copy.replaceSubrange(at, with: Data(new.utf8))
        return copy
    }
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class OutcomeBox: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = NSLock()
    private var value: ScheduleLibrary.Outcome?
    func set(_ outcome: ScheduleLibrary.Outcome) { lock.withLock { value = outcome } }
    func get() -> ScheduleLibrary.Outcome? { lock.withLock { value } }
}

enum Memory {
    /// Resident memory when the first hostile-file test started.
    static let baseline = residentBytes()

    /// Resident memory from `/proc/self/statm` (0 where it does not exist).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The peak resident memory (VmHWM) of the process.
    static func peakBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}

/// The non-zero runs of an SQLite database holding only `CREATE TABLE t(x)` and one row.
let foreignSQLitePages: [(Int, String)] = [
    (0, "53514c69746520666f726d617420330010000101004020200000000200000002"),
    (43, "0100000004"),
    (59, "01"),
    (95, "02002e63010d000000010fdf000fdf"),
    (4063, "1f0106170f0f012f7461626c65747402435245415445205441424c4520742878290d000000010ffc000ffc"),
    (8188, "02010209"),
]
