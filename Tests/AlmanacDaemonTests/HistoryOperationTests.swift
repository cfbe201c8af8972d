import AlmanacDaemon
import AlmanacWire
import Foundation
import ObjectGraph
import Testing

@Suite("history operation")
struct HistoryOperationTests {
    private func send(_ fixture: CoreFixture, _ op: String, _ fields: JSONObject, id: JSONValue, uid: uid_t)
        throws(WireError) -> JSONObject
    {
        let request = WireRequest(id: id, op: op, fields: fields)
        let author = QueryEngine.historyAuthor(peer: PeerCredentials(uid: uid, gid: 0, pid: 1), requestID: id)
        return try fixture.handler.reply(to: request, author: author).json
    }

    @Test func writesAreListedWithTheirAuthorsAfterAToken() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let start = try WireResponse.History(json: try fixture.request("history", ["after": .null]))
        let startToken = try #require(start.token)
        let inserted = try send(
            fixture, "insert",
            [
                "entity": "Favorite", "values": ["conferenceAcronym": "ssd26", "sessionGUID": "ssd26-predicates"],
            ], id: 8, uid: 1000)
        let uri = try #require(inserted["uri"]?.stringValue)
        _ = try send(fixture, "update", ["uri": .string(uri), "values": ["note": "front row"]], id: "u", uid: 1001)
        _ = try send(fixture, "delete", ["uri": .string(uri)], id: 10, uid: 1000)

        let history = try WireResponse.History(json: try fixture.request("history", ["after": .string(startToken)]))
        #expect(
            history.transactions.map(\.author) == [
                "uid:1000 request:8", "uid:1001 request:\"u\"",
                "uid:1000 request:10",
            ])
        #expect(history.transactions.map { $0.changes.map(\.type) } == [["insert"], ["update"], ["delete"]])
        #expect(history.transactions.allSatisfy { $0.changes.allSatisfy { $0.uri == uri && $0.entity == "Favorite" } })
        #expect(history.transactions[1].changes[0].updated == ["note"])
        #expect(history.transactions.allSatisfy { $0.store == fixture.core.personalStore.identifier })
        #expect(history.token == history.transactions.last?.token)

        let limited = try WireResponse.History(
            json: try fixture.request(
                "history",
                [
                    "after": .string(startToken), "limit": 1,
                ]))
        #expect(limited.transactions.count == 1)
        let rest = try WireResponse.History(
            json: try fixture.request(
                "history",
                [
                    "after": .string(try #require(limited.token))
                ]))
        #expect(rest.transactions.map(\.token) == history.transactions.dropFirst().map(\.token))
        let none = try WireResponse.History(json: try fixture.request("history", ["after": .string(history.token!)]))
        #expect(none.transactions.isEmpty)
        #expect(none.token == history.token)
    }

    @Test func aBadOrExpiredTokenIsRefusedAndChangesNothing() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let first = try WireResponse.History(json: try fixture.request("history", [:])).token
        for id in 1...2 {
            _ = try send(
                fixture, "insert",
                [
                    "entity": "Note", "values": ["text": .string("note \(id)")],
                ], id: .int(Int64(id)), uid: 1000)
        }
        let before = try WireResponse.History(json: try fixture.request("history", [:]))
        #expect(fixture.error("history", ["after": "yesterday"])?.code == .badRequest)
        #expect(fixture.error("history", ["after": "yesterday"])?.details["field"] == "after")
        #expect(fixture.error("history", ["limit": -1])?.code == .badRequest)

        // History deleted through the first insert: a token from before it has expired.
        let coordinator = fixture.core.library.coordinator
        let firstInsert = try #require(before.transactions.first { $0.author == "uid:1000 request:1" })
        try coordinator.execute(.deleteHistory(before: PersistentHistoryToken(stringValue: firstInsert.token)))
        #expect(fixture.error("history", ["after": .string(try #require(first))])?.code == .historyExpired)
        let after = try WireResponse.History(json: try fixture.request("history", [:]))
        #expect(
            after.transactions.map(\.token)
                == Array(before.transactions.map(\.token).drop { $0 != firstInsert.token }.dropFirst()))
    }
}
