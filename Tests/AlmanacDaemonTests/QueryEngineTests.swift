import AlmanacDaemon
import AlmanacWire
import Dispatch
import Foundation
import ObjectGraph
import Synchronization
import Testing

/// A daemon core on a temporary copy of the sample schedules.
struct CoreFixture {
    let root: URL
    let inbox: URL
    let core: DaemonCore
    /// The daemon's handler on the core: the one dispatch of every operation.
    let handler: DaemonHandler

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/schedules")

    /// A core on copies of the named sample files, plus `written` files (name: content), with `settings` as the
    /// state folder's `almanacd.json` and `prepareState` run on the state folder before the core opens it.
    init(files: [String] = ["swift-server-days-2026.xml", "plumbing-camp-2026.json", "open-data-evening-2026.ics"],
         written: [String: String] = [:], settings: String? = nil, prepareState: (URL) throws -> Void = { _ in })
        throws
    {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("core-\(UUID().uuidString)")
        inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(at: Self.samples.appendingPathComponent(file),
                                             to: inbox.appendingPathComponent(file))
        }
        for (name, content) in written.sorted(by: { $0.key < $1.key }) {
            try Data(content.utf8).write(to: inbox.appendingPathComponent(name))
        }
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        if let settings { try Data(settings.utf8).write(to: state.appendingPathComponent("almanacd.json")) }
        try prepareState(state)
        var configuration = DaemonConfiguration(watchFolders: [inbox], stateFolder: state,
                                                socketPath: root.appendingPathComponent("s.sock").path)
        try configuration.loadConfigurationFile()
        core = try DaemonCore(configuration: configuration)
        handler = DaemonHandler(engine: core.engine, events: EventHub(), storeThreads: core.storeThreads)
        core.scanAll()
    }

    /// The body of the answer, as encoded on the wire and read back.
    func request(_ op: String, _ fields: JSONObject = [:]) throws(WireError) -> JSONObject {
        try handler.reply(to: WireRequest(id: 1, op: op, fields: fields)).json
    }

    func error(_ op: String, _ fields: JSONObject = [:]) -> WireError? {
        do {
            _ = try request(op, fields)
            return nil
        } catch {
            return error
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite("Query engine")
struct QueryEngineTests {
    @Test func helloStoresAndCounts() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let hello = try fixture.request("hello")
        #expect(hello["protocol"] == 1)
        #expect(hello["entities"]?.arrayValue?.contains("Session") == true)
        let stores = try #require(try fixture.request("stores")["stores"]?.arrayValue)
        #expect(stores.count == 4)
        #expect(stores.allSatisfy { $0["error"] == .null })
        let count = try fixture.request("count", ["entity": "Session"])
        #expect(count["count"] == .int(18 + 14 + 9))
        #expect(fixture.core.statusLine == "serving 4 stores, 41 sessions")
    }

    @Test func fetchSortsPagesAndReportsTheTotal() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let response = try fixture.request("fetch", [
            "entity": "Session", "predicate": "room.name BEGINSWITH[c] $ROOM", "variables": ["ROOM": "hall"],
            "sort": [["key": "start"], ["key": "title", "ascending": false]], "limit": 3, "offset": 1,
            "properties": ["title", "start", "room.name"],
        ])
        let objects = try #require(response["objects"]?.arrayValue)
        #expect(objects.count == 3)
        #expect(response["total"] == 10)
        let starts = objects.compactMap { $0["values"]?["start"]?.stringValue }
        #expect(starts == starts.sorted())
        #expect(objects.allSatisfy { $0["values"]?["room.name"]?.stringValue?.hasPrefix("Hall") == true })
        #expect(objects.allSatisfy { $0["uri"]?.stringValue?.hasPrefix("x-coredata://") == true })
    }

    @Test func errorsCarryProtocolCodes() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let parse = try #require(fixture.error("fetch", ["entity": "Session", "predicate": "title ==="]))
        #expect(parse.code == .parseError)
        #expect(parse.details["offset"] != nil)
        #expect(fixture.error("fetch", ["entity": "Nope"])?.code == .unknownEntity)
        #expect(fixture.error("fetch", ["entity": "Session", "predicate": "title == $T"])?.code == .missingVariable)
        #expect(fixture.error("template", ["name": "Nope", "variables": [:]])?.code == .unknownTemplate)
        #expect(fixture.error("template", ["name": "SessionsInRoom", "variables": [:]])?.code == .missingVariable)
        #expect(fixture.error("get", ["uri": "x-coredata://nope/Session/p1"])?.code == .notFound)
        #expect(fixture.error("fetch", ["entity": "Session", "limit": -1])?.code == .badRequest)
        #expect(fixture.error("launch")?.code == .unknownOp)
    }

    @Test func templatesAnswerWithTheirVariables() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let response = try fixture.request("template", ["name": "SessionsInRoom", "variables": ["ROOM": "Hall A"],
                                                        "limit": 2])
        #expect(response["objects"]?.arrayValue?.count == 2)
        #expect((response["total"]?.intValue ?? 0) > 2)
    }

    @Test func insertsRouteToThePersonalStore() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let personal = fixture.core.personalStore.identifier
        let favorite = try fixture.request("insert", ["entity": "Favorite",
                                                      "values": ["conferenceAcronym": "ssd26", "sessionGUID": "g"]])
        #expect(favorite["store"] == .string(personal))
        let session = try fixture.request("insert", ["entity": "Session", "values": [
            "guid": "mine-1", "title": "Lunch with friends", "start": "2026-11-23T12:00:00Z",
        ]])
        #expect(session["store"] == .string(personal))
        let uri = try #require(session["uri"]?.stringValue)
        let fetched = try fixture.request("get", ["uri": .string(uri)])
        #expect(fetched["object"]?["values"]?["start"] == "2026-11-23T12:00:00Z")

        _ = try fixture.request("update", ["uri": .string(uri), "values": ["title": "Lunch"]])
        #expect(try fixture.request("get", ["uri": .string(uri)])["object"]?["values"]?["title"] == "Lunch")
        _ = try fixture.request("delete", ["uri": .string(uri)])
        #expect(fixture.error("get", ["uri": .string(uri)])?.code == .notFound)
    }

    @Test func writesToReadOnlyStoresAreRefusedAndNothingChanges() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let error = fixture.error("insert", ["entity": "Session", "store": "swift-server-days-2026.xml",
                                             "values": ["guid": "x", "title": "x"]])
        #expect(error?.code == .notWritable)
        let first = try fixture.request("fetch", ["entity": "Session", "limit": 1, "stores": ["swift-server-days-2026.xml"]])
        let uri = try #require(first["objects"]?.arrayValue?.first?["uri"])
        #expect(fixture.error("update", ["uri": uri, "values": ["title": "Hacked"]])?.code == .notWritable)
        #expect(try fixture.request("get", ["uri": uri])["object"]?["values"]?["title"] != "Hacked")
        let invalid = fixture.error("insert", ["entity": "Favorite", "values": ["sessionGUID": "g"]])
        #expect(invalid?.code == .badRequest)
        #expect(try fixture.request("count", ["entity": "Favorite"])["count"] == 0)
        #expect(fixture.error("insert", ["entity": "Favorite", "values": ["nope": 1]])?.code == .badRequest)
        #expect(fixture.error("insert", ["entity": "Run", "values": ["processID": "abc"]])?.code == .badRequest)
    }

    @Test func aSessionIsAFavouriteOnce() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let values: JSONObject = ["conferenceAcronym": "ssd26", "sessionGUID": "g"]
        _ = try fixture.request("insert", ["entity": "Favorite", "values": .object(values)])
        let error = fixture.error("insert", ["entity": "Favorite", "values": .object(values)])
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains("'Favorite' with conferenceAcronym = ssd26, sessionGUID = g") == true)
        let conflict = error?.details["conflicts"]?.arrayValue?.first
        #expect(conflict?["entity"] == "Favorite")
        #expect(conflict?["values"] == .array(["ssd26", "g"]))
        #expect(try fixture.request("count", ["entity": "Favorite"])["count"] == 1)
        // The same session of another conference is another favourite.
        _ = try fixture.request("insert", ["entity": "Favorite",
                                           "values": ["conferenceAcronym": "pc26", "sessionGUID": "g"]])
        #expect(try fixture.request("count", ["entity": "Favorite"])["count"] == 2)
    }

    @Test func aRunIsRecordedAtStart() throws {
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        let runs = try fixture.request("fetch", ["entity": "Run"])
        #expect(runs["objects"]?.arrayValue?.count == 1)
        #expect(runs["objects"]?.arrayValue?.first?["values"]?["processID"] == .int(Int64(ProcessInfo.processInfo.processIdentifier)))
    }

    @Test func replacingAFileKeepsTheOldOneWhenTheNewOneIsBadAndReportsChanges() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let file = fixture.inbox.appendingPathComponent("swift-server-days-2026.xml")
        let original = try String(contentsOf: file, encoding: .utf8)
        try Data((original.prefix(500)).utf8).write(to: file)
        #expect(fixture.core.library.attach(file) != .replaced)
        #expect(try fixture.request("count", ["entity": "Session"])["count"] == 18)
        let stores = try #require(try fixture.request("stores")["stores"]?.arrayValue)
        #expect(stores.contains { $0["error"]?.stringValue?.isEmpty == false })

        let renamed = original.replacingOccurrences(of: "Structured concurrency in practice",
                                                    with: "Structured concurrency, revisited")
        try Data(renamed.utf8).write(to: file)
        #expect(fixture.core.library.attach(file) == .replaced)
        let changes = try fixture.request("changes", ["conference": "ssd26"])
        #expect(changes["changed"]?.arrayValue?.count == 1)
        #expect(changes["added"]?.arrayValue?.isEmpty == true)
        #expect(fixture.error("changes", ["conference": "nope"])?.code == .unknownConference)
    }

    /// Four threads fetch while a fifth replaces the file ten times, alternating a release with 18 sessions and one
    /// with 17: reads run at the same time as each other, and each sees one release whole.
    @Test func fetchesDuringReplacementsSeeOneReleaseWhole() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let file = fixture.inbox.appendingPathComponent("swift-server-days-2026.xml")
        let full = try String(contentsOf: file, encoding: .utf8)
        let lastEvent = try #require(full.range(of: "<event ", options: .backwards))
        let end = try #require(full.range(of: "</event>", range: lastEvent.upperBound..<full.endIndex))
        let shorter = String(full[..<lastEvent.lowerBound]) + String(full[end.upperBound...])
        let handler = fixture.handler
        let failures = FailureLog()
        let finished = DispatchSemaphore(value: 0)
        let writing = ManagedAtomicFlag()
        for _ in 0..<4 {
            Thread.detachNewThread {
                defer { finished.signal() }
                var reads = 0
                while writing.isSet || reads < 20 {
                    reads += 1
                    do {
                        let fields: JSONObject = [
                            "entity": "Session", "sort": [["key": "title"]], "properties": ["title", "room.name"],
                        ]
                        let reply = try handler.reply(to: WireRequest(id: 1, op: "fetch", fields: fields)).json
                        let count = reply["objects"]?.arrayValue?.count ?? -1
                        if reply["total"] != .int(Int64(count)) || (count != 18 && count != 17) {
                            failures.add("\(count) objects, total \(reply["total"].map { "\($0)" } ?? "nil")")
                        }
                    } catch {
                        failures.add("\(error)")
                    }
                }
            }
        }
        writing.set(true)
        for round in 0..<10 {
            try Data((round % 2 == 0 ? shorter : full).utf8).write(to: file)
            if fixture.core.library.attach(file) != .replaced { failures.add("round \(round) was not a replacement") }
        }
        writing.set(false)
        for _ in 0..<4 { #expect(finished.wait(timeout: .now() + 60) == .success) }
        #expect(failures.entries.isEmpty)
        #expect(try fixture.request("count", ["entity": "Session"])["count"] == 18)
    }

    @Test func filesOutsideTheFolderAndOddFilesAreRefused() throws {
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        let outside = fixture.root.appendingPathComponent("outside.xml")
        try FileManager.default.copyItem(at: CoreFixture.samples.appendingPathComponent("swift-server-days-2026.xml"),
                                         to: outside)
        let link = fixture.inbox.appendingPathComponent("link.xml")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        guard case .failed(let reason) = fixture.core.library.attach(link) else {
            Issue.record("a symlink out of the folder was attached")
            return
        }
        #expect(reason.contains("outside"))
        let fifo = fixture.inbox.appendingPathComponent("pipe.xml")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        guard case .failed = fixture.core.library.attach(fifo) else {
            Issue.record("a FIFO was attached")
            return
        }
        let empty = fixture.inbox.appendingPathComponent("empty.xml")
        try Data().write(to: empty)
        guard case .failed = fixture.core.library.attach(empty) else {
            Issue.record("an empty file was attached")
            return
        }
        #expect(try fixture.request("count", ["entity": "Session"])["count"] == 0)
    }
}

@Suite("Daemon configuration file")
struct DaemonConfigurationTests {
    func configuration(with text: String?) throws -> DaemonConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = DaemonConfiguration(watchFolders: [], stateFolder: folder, socketPath: "/tmp/x.sock")
        if let text { try Data(text.utf8).write(to: configuration.configurationFile) }
        try configuration.loadConfigurationFile()
        return configuration
    }

    @Test func routingRulesAndSettingsAreRead() throws {
        let configuration = try configuration(with: #"{"routing": {"Note": "notes.sqlite"}, "readOnlyInbox": true, "writerGroup": 1000}"#)
        #expect(configuration.routingRules == ["Note": "notes.sqlite"])
        #expect(configuration.readOnlyInbox)
        #expect(configuration.writerGroupID == 1000)
        #expect(try self.configuration(with: nil).routingRules.isEmpty)
    }

    @Test func invalidFilesAreRefusedWithTheirPath() {
        #expect(throws: ConfigurationError.self) { try configuration(with: "{not json") }
        #expect(throws: ConfigurationError.self) { try configuration(with: #"{"routing": {"Note": 3}}"#) }
    }

    @Test func reloadedRulesReplaceTheOldOnesButKeepTheDefault() throws {
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        fixture.core.engine.updateRoutingRules(["Note": "personal"])
        #expect(fixture.core.engine.routingRules == ["Session": "personal", "Note": "personal"])
    }
}

/// Failures collected from several threads.
final class FailureLog: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ entry: String) { list.withLock { $0.append(entry) } }
    var entries: [String] { list.withLock { $0 } }
}

/// A flag several threads read.
final class ManagedAtomicFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set(_ value: Bool) { flag.store(value, ordering: .releasing) }
}
