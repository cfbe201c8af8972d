import AlmanacWire
import Foundation
import Glibc
import Testing

/// The PostgreSQL server of `ALMANAC_POSTGRES_URL`, nil when unset.
private let sharedStoreServer = ProcessInfo.processInfo.environment["ALMANAC_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : URL(string: $0)
}

/// Two `almanacd` processes with `--personal-store` naming one PostgreSQL schema share favourites: what one
/// acknowledges, the other answers at once. Needs the server of `ALMANAC_POSTGRES_URL` (skipped without it, except
/// under `CI=true`).
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(
        if: sharedStoreServer != nil || ProcessInfo.processInfo.environment["CI"] == "true",
        "ALMANAC_POSTGRES_URL is unset: no PostgreSQL server (start one with scripts/postgres-cluster.sh start)"))
struct SharedPersonalStoreTests {
    /// The server's URL with a schema of the test's own.
    static func personalStore(schema: String) throws -> String {
        let server = try #require(sharedStoreServer, "ALMANAC_POSTGRES_URL must name a PostgreSQL server under CI=true")
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        var items = (components.queryItems ?? []).filter { $0.name != "schema" }
        items.append(URLQueryItem(name: "schema", value: schema))
        components.queryItems = items
        return try #require(components.url?.absoluteString)
    }

    @Test func aFavouriteAcknowledgedByOneDaemonIsAnsweredByTheOther() async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let store = try Self.personalStore(schema: "shared_" + UUID().uuidString.prefix(8).lowercased())
        let first = try ChildDaemon(
            inbox: scratch.inbox, state: scratch.root.appendingPathComponent("first"), socket: scratch.socket,
            arguments: ["--personal-store", store])
        let otherSocket = scratch.socket + ".2"
        defer { unlink(otherSocket) }
        let second = try ChildDaemon(
            inbox: scratch.inbox, state: scratch.root.appendingPathComponent("second"), socket: otherSocket,
            arguments: ["--personal-store", store])
        let count = #"{"id":1,"op":"count","entity":"Favorite"}"#
        #expect(second.send(count)["count"]?.intValue == 0)

        let inserted = first.send(
            #"{"id":2,"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"ssd26","sessionGUID":"g-1"}}"#)
        #expect(inserted["ok"] == .bool(true))
        let reply = second.send(#"{"id":3,"op":"fetch","entity":"Favorite","properties":["sessionGUID"]}"#)
        let objects = reply["objects"]?.arrayValue ?? []
        #expect(objects.count == 1)
        #expect(objects.first?.objectValue?["values"]?.objectValue?["sessionGUID"]?.stringValue == "g-1")
        let recount = second.send(count)
        #expect(recount["count"]?.intValue == 1, "\(recount)")
        // Both answer for the same store: one UUID.
        #expect(
            inserted["store"] != nil && inserted["store"] == reply["objects"]?.arrayValue?.first?.objectValue?["store"])
        #expect(await first.stop())
        #expect(await second.stop())
    }
    @Test func aFavouriteInsertedOnOneDaemonIsPushedToTheOthersSubscribersWithinASecond() async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let store = try Self.personalStore(schema: "pushed_" + UUID().uuidString.prefix(8).lowercased())
        let first = try ChildDaemon(
            inbox: scratch.inbox, state: scratch.root.appendingPathComponent("first"), socket: scratch.socket,
            arguments: ["--personal-store", store])
        let otherSocket = scratch.socket + ".2"
        defer { unlink(otherSocket) }
        let second = try ChildDaemon(
            inbox: scratch.inbox, state: scratch.root.appendingPathComponent("second"), socket: otherSocket,
            arguments: ["--personal-store", store])
        // On the second daemon: every event, and the results of a fetch of favourites.
        let events = try #require(EventLines(otherSocket, #"{"id":1,"op":"subscribe"}"#))
        let results = try #require(
            EventLines(
                otherSocket,
                #"{"id":2,"op":"subscribe","fetch":{"entity":"Favorite","properties":["sessionGUID"]}}"#))
        #expect(events.next()?["subscribed"] == .bool(true))
        #expect(results.next()?["subscribed"] == .bool(true))

        let inserted = first.send(
            #"{"id":3,"op":"insert","entity":"Favorite","values":{"conferenceAcronym":"ssd26","sessionGUID":"g-1"}}"#)
        let acknowledged = ContinuousClock.now
        #expect(inserted["ok"] == .bool(true))
        let uri = try #require(inserted["uri"]?.stringValue)
        let changed = try #require(events.next { $0["event"]?.stringValue == "objectsChanged" })
        let latency = ContinuousClock.now - acknowledged
        #expect(changed["inserted"]?.arrayValue?.compactMap(\.stringValue) == [uri])
        #expect(latency <= .seconds(1), "the event came \(latency) after the acknowledgement")
        // The first event of a fetch subscription gives its results (none yet); the next one the new favourite.
        let moved = try #require(
            results.next {
                $0["event"]?.stringValue == "resultsChanged" && $0["inserted"]?.arrayValue?.isEmpty == false
            })
        let object = moved["inserted"]?.arrayValue?.first?.objectValue?["object"]?.objectValue
        #expect(object?["values"]?.objectValue?["sessionGUID"]?.stringValue == "g-1")
        #expect(await first.stop())
        #expect(await second.stop())
    }
}

/// A subscribed connection: the lines the daemon sends on it, one parsed object at a time.
final class EventLines {
    private let fd: CInt
    private var buffer: [UInt8] = []

    /// Connects to `socket` and sends `request`; nil when the daemon cannot be reached.
    init?(_ socket: String, _ request: String) {
        guard let fd = UnixSocketConnection.open(socket, receiveTimeout: 30) else { return nil }
        self.fd = fd
        let bytes = Array((request + "\n").utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { return nil }
    }

    deinit { close(fd) }

    /// The next line; nil when none arrives within 30 s.
    func next() -> JSONObject? {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return (try? JSONValue(parsing: line).objectValue) ?? [:]
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk.prefix(count)
        }
    }

    /// The next line that `matches`, skipping others; nil when none arrives within 30 s (a daemon that keeps
    /// sending other lines cannot keep the caller waiting longer than that and one read).
    func next(where matches: (JSONObject) -> Bool) -> JSONObject? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, let line = next() {
            if matches(line) { return line }
        }
        return nil
    }
}
