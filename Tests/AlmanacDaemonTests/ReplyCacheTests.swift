import AlmanacWire
import Foundation
import ObjectGraph
import ObjectGraphSQLite
import Testing

@testable import AlmanacDaemon

/// Kept replies: an identical reading request is answered from the cache only while no store changed, whoever
/// changed it.
@Suite("Reply cache")
struct ReplyCacheTests {
    static let earliest: JSONObject = ["entity": "Session", "sort": [["key": "start"]], "limit": 3]

    func titles(_ reply: JSONObject) -> [String] {
        reply["objects"]?.arrayValue?.compactMap { $0["values"]?["title"]?.stringValue } ?? []
    }

    @Test func anIdenticalRequestIsAnsweredFromTheCache() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let engine = fixture.core.engine
        let first = try fixture.request("fetch", Self.earliest)
        #expect(engine.replies.hits == 0)
        #expect(try fixture.request("fetch", Self.earliest) == first)
        #expect(engine.replies.hits == 1)
        let predicate: JSONObject = ["entity": "Session", "predicate": "title != nil"]
        #expect(try fixture.request("count", predicate) == (try fixture.request("count", predicate)))
        #expect(engine.replies.hits == 2)
        // Another request (here: another limit) is not the same request; only its total is the first one's.
        #expect(
            titles(try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]], "limit": 2]))
                == Array(titles(first).prefix(2)))
        #expect(engine.replies.hits == 3)
    }

    /// The pages of one request count their total once while the stores are unchanged: the first page keeps it
    /// under the key of the `count` request for the same objects, which a `count` request is answered from too.
    @Test func pagesOfOneRequestCountTheirTotalOnce() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let engine = fixture.core.engine
        func page(_ offset: Int) throws -> JSONObject {
            try fixture.request(
                "fetch",
                [
                    "entity": "Session", "predicate": "title != nil", "sort": [["key": "start"]],
                    "limit": 2, "offset": .int(offset), "properties": ["title"],
                ])
        }
        let first = try page(0)
        let total = try #require(first["total"]?.intValue)
        #expect(total > 4)
        #expect(engine.replies.hits == 0)
        let second = try page(2)
        #expect(second["total"]?.intValue == total)
        #expect(engine.replies.hits == 1)
        #expect(
            try fixture.request("count", ["entity": "Session", "predicate": "title != nil"])["count"]?.intValue
                == total)
        #expect(engine.replies.hits == 2)
        // Another predicate is another total.
        let other = try fixture.request(
            "fetch",
            [
                "entity": "Session", "predicate": "title == nil", "limit": 2,
                "offset": 1,
            ])
        #expect(other["total"]?.intValue == 0)
        #expect(engine.replies.hits == 2)
        // A save changes the stores: the next page counts again.
        _ = try fixture.request(
            "insert",
            [
                "entity": "Session",
                "values": [
                    "guid": "early-4", "title": "Sunrise", "start": "2000-01-01T05:00:00Z",
                ],
            ])
        let third = try page(4)
        #expect(third["total"]?.intValue == total + 1)
        #expect(engine.replies.hits == 2)
        #expect(try page(0)["total"]?.intValue == total + 1)
        #expect(engine.replies.hits == 3)
        // Templates' pages share their total the same way.
        let template: JSONObject = ["name": "SessionsInRoom", "variables": ["ROOM": "Hall A"], "limit": 1]
        var paged = template
        paged["offset"] = 1
        let hall = try fixture.request("template", template)["total"]?.intValue
        #expect((hall ?? 0) > 1)
        #expect(try fixture.request("template", paged)["total"]?.intValue == hall)
        #expect(engine.replies.hits == 4)
    }

    /// A page shorter than its limit ends the list: its total is the offset and what it holds, with no count; an
    /// empty page past the start still counts.
    @Test func aShortPageGivesItsTotalWithoutCounting() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let engine = fixture.core.engine
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "title != nil")
        let total = try ManagedObjectContext(coordinator: fixture.core.library.coordinator).count(for: request)
        #expect(total > 3)
        func page(_ offset: Int, _ limit: Int) throws -> (count: Int?, total: Int?) {
            let reply = try fixture.request(
                "fetch",
                [
                    "entity": "Session", "predicate": "title != nil", "sort": [["key": "start"]],
                    "offset": .int(offset), "limit": .int(limit),
                ])
            return (reply["objects"]?.arrayValue?.count, reply["total"]?.intValue.map(Int.init))
        }
        #expect(try page(total - 1, 5) == (1, total))
        #expect(try page(0, total + 5) == (total, total))
        #expect(engine.totalsCounted.withLock { $0 } == 0)
        // A full page counts, unless a total is kept: the short pages kept theirs.
        #expect(try page(1, 2) == (2, total))
        #expect(engine.totalsCounted.withLock { $0 } == 0)
        // An empty page past the end cannot tell where the list ends.
        _ = try fixture.request(
            "insert",
            [
                "entity": "Session",
                "values": ["guid": "late-1", "title": "Nightcap", "start": "2030-01-01T23:00:00Z"],
            ])
        #expect(try page(total + 3, 5) == (0, total + 1))
        #expect(engine.totalsCounted.withLock { $0 } == 1)
        #expect(try page(total, 5) == (1, total + 1))
    }

    @Test func savesThroughTheDaemonAreSeen() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let before = try fixture.request("fetch", Self.earliest)
        _ = try fixture.request(
            "insert",
            [
                "entity": "Session",
                "values": [
                    "guid": "early-1", "title": "Early breakfast", "start": "2000-01-01T08:00:00Z",
                ],
            ])
        let after = try fixture.request("fetch", Self.earliest)
        #expect(titles(after).first == "Early breakfast")
        #expect(after["total"]?.intValue == (before["total"]?.intValue).map { $0 + 1 })
    }

    @Test func anotherProcessesCommitToTheSQLiteStoreIsSeen() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let before = try fixture.request("fetch", Self.earliest)
        _ = try fixture.request("fetch", Self.earliest)
        #expect(fixture.core.engine.replies.hits == 1)

        // A second coordinator on the same file stands for another process writing to it.
        let coordinator = PersistentStoreCoordinator(
            managedObjectModel: fixture.core.library.coordinator.managedObjectModel)
        let url = fixture.root.appendingPathComponent("state/personal.sqlite")
        let store = try coordinator.addPersistentStore(type: .sqlite, configurationName: "Personal", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let session = context.insertNewObject(forEntityName: "Session")
        session.setValue("early-2", forKey: "guid")
        session.setValue("Written elsewhere", forKey: "title")
        session.setValue(Date(timeIntervalSince1970: 0), forKey: "start")
        try context.assign(session, to: store)
        try context.save()

        let after = try fixture.request("fetch", Self.earliest)
        #expect(titles(after).first == "Written elsewhere")
        #expect(after["total"]?.intValue == (before["total"]?.intValue).map { $0 + 1 })
        #expect(fixture.core.engine.replies.hits == 1)
    }

    @Test func aReplacedFileIsSeen() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let file = fixture.inbox.appendingPathComponent("swift-server-days-2026.xml")
        let request: JSONObject = ["entity": "Session", "predicate": "title CONTAINS 'revisited'"]
        #expect(try fixture.request("count", request)["count"] == 0)
        let original = try String(contentsOf: file, encoding: .utf8)
        try Data(
            original.replacingOccurrences(
                of: "Structured concurrency in practice",
                with: "Structured concurrency, revisited"
            ).utf8
        ).write(to: file)
        #expect(fixture.core.library.attach(file) == .replaced)
        #expect(try fixture.request("count", request)["count"] == 1)
    }

    @Test func requestsCallingNowAreNotKept() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let request: JSONObject = ["entity": "Session", "predicate": "start < now()", "limit": 3]
        _ = try fixture.request("fetch", request)
        _ = try fixture.request("fetch", request)
        _ = try fixture.request("count", request)
        #expect(fixture.core.engine.replies.count == 0)
        #expect(fixture.core.engine.replies.hits == 0)
    }

    @Test func keptRepliesAreGivenWithoutWaitingOnlyWhileTheStoresAreUnchanged() throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let engine = fixture.core.engine
        let request = WireRequest(id: 7, op: "fetch", fields: Self.earliest)
        // Nothing kept yet: the request goes to the engine as usual.
        #expect(engine.keptReply(to: request) == nil)
        let first = try fixture.request("fetch", Self.earliest)
        #expect(engine.keptReply(to: request)?.json == first)
        // Only reading requests, and only identical ones.
        #expect(engine.keptReply(to: WireRequest(id: 7, op: "fetch", fields: ["entity": "Session"])) == nil)
        #expect(engine.keptReply(to: WireRequest(id: 7, op: "stores", fields: [:])) == nil)
        // A save changes the stores: the kept reply is no longer given.
        _ = try fixture.request(
            "insert",
            [
                "entity": "Session",
                "values": [
                    "guid": "early-3", "title": "Dawn patrol", "start": "2000-01-01T06:00:00Z",
                ],
            ])
        #expect(engine.keptReply(to: request) == nil)
        let second = try fixture.request("fetch", Self.earliest)
        #expect(titles(second).first == "Dawn patrol")
        #expect(engine.keptReply(to: request)?.json == second)
    }

    @Test func keptRepliesAreNotGivenWhileAWriterHoldsOrAwaitsTheStores() async throws {
        let fixture = try CoreFixture()
        defer { fixture.remove() }
        let engine = fixture.core.engine
        let coordinator = fixture.core.library.coordinator
        let request = WireRequest(id: 1, op: "count", fields: ["entity": "Session"])
        _ = try fixture.request("count", ["entity": "Session"])
        #expect(engine.keptReply(to: request) != nil)
        #expect(try coordinator.contentTokenWithoutWaiting() != nil)

        // A writer inside the coordinator on another thread: neither the token nor the reply waits for it.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writer = Thread {
            coordinator.performAndWait {
                entered.signal()
                release.wait()
            }
        }
        writer.start()
        entered.wait()
        #expect(try coordinator.contentTokenWithoutWaiting() == nil)
        #expect(engine.keptReply(to: request) == nil)
        release.signal()
        // Once the writer is gone, the kept reply is given again (the writer changed nothing).
        var answered = false
        for _ in 0..<200 where !answered {
            answered = engine.keptReply(to: request) != nil
            if !answered { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(answered)
    }

    @Test func aFullCacheDropsItsLeastRecentlyUsedQuarter() throws {
        let cache = ReplyCache(limit: 8)
        let coordinator = PersistentStoreCoordinator(
            managedObjectModel: ManagedObjectModel(entities: [
                EntityDescription(name: "Item", properties: [AttributeDescription(name: "n", type: .integer64)])
            ]))
        let token = try #require(try coordinator.contentToken())
        func key(_ n: Int) -> ReplyCache.Key { ReplyCache.Key(op: "count", fields: ["n": .int(Int64(n))]) }
        for n in 0..<8 { cache.keep(.count(.init(count: n)), for: key(n), token: token) }
        // Using the oldest makes it the most recent: the next two oldest go when a ninth reply comes.
        #expect(cache.reply(for: key(0), token: token) == .count(.init(count: 0)))
        cache.keep(.count(.init(count: 8)), for: key(8), token: token)
        #expect(cache.count == 7)
        #expect(!cache.containsReply(for: key(1)) && !cache.containsReply(for: key(2)))
        #expect([0, 3, 4, 5, 6, 7, 8].allSatisfy { cache.containsReply(for: key($0)) })
    }
}
