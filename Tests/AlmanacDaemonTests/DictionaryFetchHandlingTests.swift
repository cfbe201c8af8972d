import AlmanacDaemon
import AlmanacWire
import Foundation
import Testing

@Suite("Query engine: dictionary fetches")
struct DictionaryFetchHandlingTests {
    @Test func groupedRowsAddUpToWhatTheObjectsHold() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let grouped = try fixture.request(
            "fetch",
            [
                "entity": "Session", "resultType": "dictionary", "groupBy": ["room.name"],
                "aggregates": [
                    ["name": "sessions", "function": "count"],
                    ["name": "minutes", "function": "sum", "key": "duration"],
                    ["name": "longest", "function": "max", "key": "duration"],
                ],
                "sort": [["key": "room.name"]],
            ])
        #expect(grouped["objects"] == nil)
        let rows = (grouped["rows"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(Int64(rows.count) == grouped["total"]?.intValue)
        let objects = try fixture.request("fetch", ["entity": "Session", "properties": ["duration", "room.name"]])
        let sessions = (objects["objects"]?.arrayValue ?? []).compactMap(\.objectValue)
        let durations = sessions.map { $0["values"]?.objectValue?["duration"]?.intValue ?? 0 }
        #expect(!sessions.isEmpty)
        #expect(rows.map { $0["sessions"]?.intValue ?? 0 }.reduce(0, +) == Int64(sessions.count))
        #expect(rows.map { $0["minutes"]?.intValue ?? 0 }.reduce(0, +) == durations.reduce(0, +))
        #expect(rows.compactMap { $0["longest"]?.intValue }.max() == durations.max())
        let rooms = rows.compactMap { $0["room.name"]?.stringValue }
        #expect(rooms == rooms.sorted() && !rooms.isEmpty)

        let distinct = try fixture.request(
            "fetch",
            [
                "entity": "Session", "resultType": "dictionary", "properties": ["room.name"], "distinct": true,
            ])
        #expect(
            distinct["rows"]?.arrayValue?.count
                == Set(
                    sessions.map {
                        $0["values"]?.objectValue?["room.name"]?.stringValue ?? ""
                    }
                ).count)
    }

    @Test func invalidDictionaryFetchesAreBadRequests() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let unknownFunction = fixture.error(
            "fetch",
            [
                "entity": "Session", "resultType": "dictionary",
                "aggregates": [["name": "x", "function": "median", "key": "duration"]],
            ])
        #expect(unknownFunction?.code == .badRequest)
        #expect(unknownFunction?.details["field"]?.stringValue == "aggregates")
        #expect(fixture.error("fetch", ["entity": "Session", "resultType": "rows"])?.code == .badRequest)
        let ungrouped = fixture.error(
            "fetch",
            [
                "entity": "Session", "resultType": "dictionary", "properties": ["title"],
                "aggregates": [["name": "n", "function": "count"]],
            ])
        #expect(ungrouped?.code == .badRequest)
        #expect(
            fixture.error(
                "fetch",
                [
                    "entity": "Session", "resultType": "dictionary", "groupBy": ["room.name"], "having": "count >",
                ])?.code == .parseError)
    }
}
