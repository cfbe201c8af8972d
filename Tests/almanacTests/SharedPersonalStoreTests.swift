import AlmanacWire
import Foundation
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
}
