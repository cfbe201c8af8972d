import AlmanacWire
import Foundation
import Testing

@testable import AlmanacDaemon

/// `subscribe` with a `fetch`, against a live server on the sample schedules: the `resultsChanged` events keep a
/// client's list equal to fetching again, and a subscription that cannot start is refused with nothing changed.
@Suite(.timeLimit(.minutes(1)))
struct ResultsSubscriptionTests {
    static let fetch: JSONObject = [
        "entity": "Favorite", "predicate": "note BEGINSWITH 'k'", "sort": [["key": "note"]],
        "properties": ["note"],
    ]

    @Test func resultsChangedKeepsTheClientsListEqualToFetchingAgain() async throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        fixture.handler.events.publishSaves(of: fixture.core.library.coordinator)
        try await withServer(handler: fixture.handler) { path, _ in
            try await withClient(path) { subscriber in
                try await subscriber.send(WireRequest(id: 1, op: "subscribe", fields: ["fetch": .object(Self.fetch)]))
                #expect(try await subscriber.readObject()?["subscribed"] == true)
                // The first event holds the current results: none yet.
                var list = try #require(try Self.apply(try await subscriber.readObject(), to: []))
                #expect(list.isEmpty)
                try await withClient(path) { writer in
                    var id: Int64 = 10
                    func write(_ op: String, _ fields: JSONObject) async throws -> JSONObject {
                        id += 1
                        try await writer.send(WireRequest(id: .int(id), op: op, fields: fields))
                        let answer = try #require(try await writer.readObject())
                        #expect(answer["ok"] == true, "\(op) \(fields): \(answer)")
                        return answer
                    }
                    func favorite(_ guid: String, _ note: String) async throws -> String {
                        let values: JSONObject = [
                            "conferenceAcronym": "ssd26", "sessionGUID": .string(guid),
                            "note": .string(note),
                        ]
                        return try #require(
                            try await write("insert", ["entity": "Favorite", "values": .object(values)])["uri"]?
                                .stringValue)
                    }
                    func expectEvent(_ what: String) async throws {
                        let event = try await subscriber.readObject()
                        list = try #require(try Self.apply(event, to: list), "\(what): \(String(describing: event))")
                        let fetched = try await write("fetch", Self.fetch)
                        let uris = (fetched["objects"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue }
                        #expect(list == uris, "\(what)")
                    }
                    let first = try await favorite("g1", "k2")
                    try await expectEvent("insert")
                    let second = try await favorite("g2", "k1")
                    try await expectEvent("insert before")
                    // An object of another entity changes nothing: the next event is the next change.
                    _ = try await write("insert", ["entity": "Note", "values": ["text": "x"]])
                    _ = try await write("update", ["uri": .string(first), "values": ["note": "a"]])
                    try await expectEvent("leaves the predicate")
                    _ = try await write("update", ["uri": .string(first), "values": ["note": "k0"]])
                    try await expectEvent("enters again")
                    _ = try await write("update", ["uri": .string(second), "values": ["note": "k9"]])
                    try await expectEvent("moves")
                    _ = try await write("delete", ["uri": .string(first)])
                    try await expectEvent("deleted")
                    #expect(list == [second])
                }
            }
        }
    }

    @Test func aSubscriptionThatCannotStartIsRefusedAndNothingChanges() throws {
        let fixture = try CoreFixture(settings: #"{"maximumReplyObjects": 10}"#)
        defer { fixture.remove() }
        func subscribe(_ fetch: JSONObject) -> WireError? { fixture.error("subscribe", ["fetch": .object(fetch)]) }
        #expect(subscribe(["entity": "Nope"])?.code == .unknownEntity)
        #expect(subscribe(["entity": "Session", "predicate": "title ==="])?.code == .parseError)
        #expect(subscribe(["entity": "Session", "predicate": "start > $FROM"])?.code == .missingVariable)
        #expect(subscribe(["entity": "Session", "resultType": "dictionary"])?.code == .badRequest)
        #expect(subscribe(["entity": "Session"])?.code == .tooLarge)
        #expect(subscribe(["limit": 3])?.code == .badRequest)
        #expect(fixture.handler.events.subscriberCount == 0)
        #expect(try fixture.request("stats")["subscribers"] == 0)
    }

    /// Applies a `resultsChanged` event to a list of URIs; nil when it is not one or does not fit the list.
    static func apply(_ event: JSONObject?, to list: [String]) throws -> [String]? {
        guard let event, event["event"] == "resultsChanged" else { return nil }
        return try WireEvent.ResultsChanged(json: WireEvent(json: event).fields).applied(to: list)
    }
}
