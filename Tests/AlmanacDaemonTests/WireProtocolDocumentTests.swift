import AlmanacWire
import Foundation
import Logging
import Testing

@testable import AlmanacDaemon

/// Replays every example of `TheWireProtocol.md` against a live daemon and decodes every documented and every live
/// reply with the client's types, so the document, the daemon and the client cannot drift apart.
///
/// Each ```json block of the document runs on a connection of its own, in order, against one daemon on copies of
/// the sample schedules. A line with `op` is a request, sent as written (URIs the document shows in earlier
/// replies become the live ones); a line with `ok` is the reply expected next; a line with `event` is an event
/// expected next (the test makes the daemon attach a new file the first time, as its watcher would). A live reply
/// must have the documented `id`, `ok` and error `code`, and the same shape: the same keys in every object (except
/// free-form ones such as `values`), the same JSON types where both are not null, and arrays compared by their first
/// element.
@Suite(.timeLimit(.minutes(1)))
struct WireProtocolDocumentTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/AlmanacWire/AlmanacWire.docc/TheWireProtocol.md")

    /// Members whose keys are data, not protocol.
    static let freeForm: Set<String> = ["values", "previous", "configurations", "templates", "variables"]

    /// One line of an example block.
    enum Line {
        case request(String, WireRequest)
        case reply(JSONObject)
        case event(JSONObject)
    }

    /// The ```json blocks of the document, as lines.
    static func examples() throws -> [[Line]] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var blocks: [[Line]] = []
        var current: [Line]?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if current == nil {
                if line == "```json" { current = [] }
                continue
            }
            if line == "```" {
                blocks.append(current!)
                current = nil
                continue
            }
            guard !line.isEmpty else { continue }
            let object = try #require(try JSONValue(parsing: line).objectValue, "not a JSON object: \(line)")
            if object["op"] != nil {
                current!.append(.request(line, try WireRequest(json: object)))
            } else if object["ok"] != nil {
                current!.append(.reply(object))
            } else {
                #expect(object["event"] != nil, "neither a request, a reply nor an event: \(line)")
                current!.append(.event(object))
            }
        }
        #expect(current == nil, "a ```json block is not closed")
        return blocks
    }

    @Test func everyExampleOfTheDocumentIsWhatTheDaemonSendsAndTheClientReads() async throws {
        let blocks = try Self.examples()
        // Every operation has an example request and reply, and so does the error shape.
        let requests = blocks.flatMap { $0 }.compactMap { line -> WireRequest? in
            if case .request(_, let request) = line { return request }
            return nil
        }
        #expect(Set(requests.compactMap(\.operation)) == Set(WireOperation.allCases))
        let replies = blocks.flatMap { $0 }.compactMap { line -> JSONObject? in
            if case .reply(let reply) = line { return reply }
            return nil
        }
        #expect(replies.contains { $0["ok"] == false })
        #expect(blocks.flatMap { $0 }.contains { if case .event = $0 { return true } else { return false } })

        // A reply limit below the samples' 41 sessions, so the `too_large` example is what this daemon sends.
        let fixture = try CoreFixture(settings: #"{"maximumReplyObjects": 40}"#)
        defer { fixture.remove() }
        var uris: [String: String] = [:]
        try await withServer(handler: fixture.handler) { path, _ in
            for block in blocks {
                try await withClient(path) { client in
                    var pending: [WireRequest] = []
                    for line in block {
                        switch line {
                        case .request(let text, let request):
                            var sent = text
                            for (documented, live) in uris {
                                sent = sent.replacingOccurrences(of: documented, with: live)
                            }
                            try await client.send(sent + "\n")
                            pending.append(request)
                        case .reply(let documented):
                            let request = try #require(pending.first, "a reply without a request: \(documented)")
                            pending.removeFirst()
                            let text = try #require(try await client.readLine())
                            let live = try #require(try JSONValue(parsing: text).objectValue)
                            try Self.check(live, against: documented, for: request, uris: &uris, line: text)
                        case .event(let documented):
                            try fixture.attachNewFile(events: fixture.handler.events)
                            let text = try #require(try await client.readLine())
                            let live = try #require(try JSONValue(parsing: text).objectValue)
                            let event = try WireEvent(json: live)
                            #expect(event.kind == (try WireEvent(json: documented)).kind, "\(text)")
                            Self.compareShape(.object(live), .object(documented), path: "event", line: text)
                        }
                    }
                    #expect(pending.isEmpty, "requests without a documented reply: \(pending.map(\.op))")
                }
            }
        }
    }

    /// Checks a live reply against the documented one: envelope, error code, the client's types, shape.
    static func check(
        _ live: JSONObject, against documented: JSONObject, for request: WireRequest,
        uris: inout [String: String], line: String
    ) throws {
        #expect(live["id"] == documented["id"], "\(line)")
        #expect(live["ok"] == documented["ok"], "\(line)")
        let liveResponse = try #require(try WireResponse(json: live))
        let documentedResponse = try #require(try WireResponse(json: documented))
        switch (liveResponse, documentedResponse) {
        case (.failure(_, let liveError), .failure(_, let documentedError)):
            #expect(liveError.code == documentedError.code, "\(line)")
        case (.success(_, let liveBody), .success(_, let documentedBody)):
            // Both decode with the type the client reads this operation's answer with.
            let operation = try #require(request.operation)
            try decode(liveBody, for: operation)
            try decode(documentedBody, for: operation)
        default:
            Issue.record("the daemon answered \(line) for \(request.op)")
        }
        compareShape(.object(live), .object(documented), path: request.op, line: line)
        collectURIs(live: .object(live), documented: .object(documented), into: &uris)
    }

    /// Decodes a body with the client's type for the operation.
    static func decode(_ body: JSONObject, for operation: WireOperation) throws {
        switch operation {
        case .hello: _ = try WireResponse.Hello(json: body)
        case .ping, .delete: _ = try WireResponse.Empty(json: body)
        case .model: _ = try WireResponse.Model(json: body)
        case .stores: _ = try WireResponse.Stores(json: body)
        case .fetch, .template: _ = try WireResponse.Fetch(json: body)
        case .count: _ = try WireResponse.Count(json: body)
        case .get, .update: _ = try WireResponse.Get(json: body)
        case .insert: _ = try WireResponse.Insert(json: body)
        case .changes: _ = try WireResponse.Changes(json: body)
        case .history: _ = try WireResponse.History(json: body)
        case .subscribe: _ = try WireResponse.Subscribed(json: body)
        case .stats: _ = try WireResponse.Stats(json: body)
        }
    }

    static func compareShape(_ live: JSONValue, _ documented: JSONValue, path: String, line: String) {
        switch (live, documented) {
        case (.null, _), (_, .null):
            return
        case (.object(let live), .object(let documented)):
            guard !freeForm.contains(path.split(separator: ".").last.map(String.init) ?? "") else { return }
            #expect(
                Set(live.keys) == Set(documented.keys),
                "\(path): the daemon sends \(live.keys.sorted()), the document shows \(documented.keys.sorted()): \(line)"
            )
            for (key, value) in documented {
                if let other = live[key] { compareShape(other, value, path: path + "." + key, line: line) }
            }
        case (.array(let live), .array(let documented)):
            if let first = live.first, let shown = documented.first {
                compareShape(first, shown, path: path + "[0]", line: line)
            }
        case (.int, .double), (.double, .int):
            return
        default:
            #expect(
                live.typeName == documented.typeName,
                "\(path): \(live.typeName), documented \(documented.typeName): \(line)")
        }
    }

    /// Pairs the documented URIs with the live ones, so later requests of the document reach the same objects.
    static func collectURIs(live: JSONValue, documented: JSONValue, into uris: inout [String: String]) {
        switch (live, documented) {
        case (.object(let live), .object(let documented)):
            for (key, value) in documented {
                guard let other = live[key] else { continue }
                if key == "uri", let shown = value.stringValue, let real = other.stringValue, shown != real {
                    uris[shown] = real
                }
                collectURIs(live: other, documented: value, into: &uris)
            }
        case (.array(let live), .array(let documented)):
            for (other, value) in zip(live, documented) { collectURIs(live: other, documented: value, into: &uris) }
        default:
            return
        }
    }
}

extension CoreFixture {
    /// Drops a new schedule into the inbox and reports it as the daemon's watcher does (a `storeAttached` event).
    func attachNewFile(events: EventHub) throws {
        let file = inbox.appendingPathComponent("devcon-2026-day1.xml")
        // Once: a later event line (a fetch subscription's first `resultsChanged`) needs no new file.
        guard !FileManager.default.fileExists(atPath: file.path) else { return }
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent(file.lastPathComponent), to: file)
        #if canImport(Glibc)
            let watcher = WatcherService(
                core: core, events: events, logger: Logger(label: "test.watcher"),
                watcher: try DirectoryWatcher(folders: []))
            watcher.report(file, core.library.attach(file))
            watcher.watcher.stop()
        #endif
    }
}
