import AlmanacWire
import Foundation
import Testing

@testable import AlmanacDaemon

/// `maximumReplyObjects`: a `fetch` or `template` whose reply would hold more objects is refused with `too_large`
/// (with `limit` and `total`) before any object is read; pages within the limit are answered as before.
struct ReplySizeLimitTests {
    static let settings = #"{"maximumReplyObjects": 10}"#

    @Test func aFetchPastTheLimitIsRefusedWithTheCountAndPagesAreAnswered() throws {
        let fixture = try CoreFixture(settings: Self.settings)
        defer { fixture.remove() }
        let total = try #require(try fixture.request("count", ["entity": "Session"])["count"]?.intValue)
        #expect(total > 20, "the samples have too few sessions for this test")

        let error = try #require(fixture.error("fetch", ["entity": "Session"]))
        #expect(error.code == .tooLarge)
        #expect(error.details["limit"] == "maximumReplyObjects")
        #expect(error.details["value"] == .int(10))
        #expect(error.total == Int(total))
        #expect(fixture.error("fetch", ["entity": "Session", "limit": 11])?.code == .tooLarge)
        #expect(fixture.error("template", ["name": "SearchSessions", "variables": ["TEXT": "a"]])?.code == .tooLarge)

        // Within the limit: a page, the last few without a limit, a limit past the end.
        let page = try fixture.request("fetch", ["entity": "Session", "limit": 10, "offset": 5])
        #expect(page["objects"]?.arrayValue?.count == 10)
        #expect(page["total"]?.intValue == total)
        let tail = try fixture.request("fetch", ["entity": "Session", "offset": .int(total - 3)])
        #expect(tail["objects"]?.arrayValue?.count == 3)
        let past = try fixture.request("fetch", ["entity": "Session", "limit": 100, "offset": .int(total - 4)])
        #expect(past["objects"]?.arrayValue?.count == 4)
        #expect(try fixture.request("count", ["entity": "Session"])["count"]?.intValue == total)
    }

    /// `SearchSessions` pages through its two groups (title matches first) without reading past the page: every
    /// page of the limited daemon is the matching slice of the whole list.
    @Test func searchPagesAreSlicesOfTheWholeList() throws {
        let limited = try CoreFixture(settings: Self.settings)
        defer { limited.remove() }
        let whole = try CoreFixture()
        defer { whole.remove() }
        let sort: JSONValue = .array([.object(["key": "start"]), .object(["key": "title"])])
        func titles(_ fixture: CoreFixture, _ extra: JSONObject) throws -> [String] {
            var fields: JSONObject = ["name": "SearchSessions", "variables": ["TEXT": "e"], "sort": sort]
            for (key, value) in extra { fields[key] = value }
            let reply = try fixture.request("template", fields)
            return (reply["objects"]?.arrayValue ?? []).compactMap { $0["values"]?["title"]?.stringValue }
        }
        let all = try titles(whole, [:])
        #expect(all.count > 20)
        for offset in stride(from: 0, to: all.count + 5, by: 7) {
            let page = try titles(limited, ["limit": 10, "offset": .int(Int64(offset))])
            #expect(page == Array(all.dropFirst(offset).prefix(10)), "offset \(offset)")
        }
    }
}
