import AlmanacWire
import Foundation
import Glibc
import Testing

/// A `fetch` with no limit over 100,000 sessions (a million with `scripts/huge-reply.sh`): the daemon refuses it with `too_large` (counting, not reading,
/// the objects), its memory stays within the documented bound, and other clients get their answers meanwhile.
@Suite(.timeLimit(.minutes(3)))
struct HugeReplyTests {
    /// Sessions written straight into the personal store's file (one transaction, Core Data's layout): 100,000 in
    /// the suite (twice the default `maximumReplyObjects`; a million takes 7 s to write on an idle machine and over
    /// two minutes among the suite's other tests), a million with `scripts/huge-reply.sh`, which sets
    /// `ALMANAC_HUGE_REPLY_SESSIONS`.
    static let generated =
        ProcessInfo.processInfo.environment["ALMANAC_HUGE_REPLY_SESSIONS"].flatMap { Int($0) }
        ?? 100_000
    /// The daemon's resident memory may grow by at most this much while it answers the requests below (the bound
    /// TheWireProtocol.md documents for a reply of `maximumReplyObjects` objects is smaller; debug builds need more).
    static let allowedGrowth = 256 * 1024 * 1024

    static func generateSessions(_ count: Int, in store: URL) throws {
        let file = try SQLiteFile(store)
        let entity = try #require(try file.strings("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Session'").first)
        try file.execute(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO ZSESSION (Z_PK, Z_ENT, Z_OPT, ZGUID, ZTITLE, ZSTART, ZEND)
            SELECT i, \(entity), 1, 'gen-' || i, 'Generated session ' || i, 800000000 + i * 60,
                800000000 + i * 60 + 1800 FROM n;
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(entity);
            COMMIT;
            """)
    }

    @Test func anUnlimitedFetchOfHugeDataIsRefusedWithinTheMemoryBound() async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let state = scratch.root.appendingPathComponent("state")
        let first = try ChildDaemon(inbox: scratch.inbox, state: state, socket: scratch.socket)
        let served = try #require(first.send(#"{"id":0,"op":"count","entity":"Session"}"#)["count"]?.intValue)
        #expect(await first.stop())
        let started = ContinuousClock.now
        try Self.generateSessions(Self.generated, in: state.appendingPathComponent("personal.sqlite"))
        print("HugeReplyTests: \(Self.generated) sessions written in \(ContinuousClock.now - started)")

        let daemon = try ChildDaemon(inbox: scratch.inbox, state: state, socket: scratch.socket)
        let total = Int64(Self.generated) + served
        #expect(daemon.send(#"{"id":1,"op":"count","entity":"Session"}"#)["count"]?.intValue == total)
        let before = daemon.residentBytes

        // The huge fetch, while another client keeps asking.
        let socket = daemon.socket
        let huge = Task.detached { ChildDaemon.request(#"{"id":2,"op":"fetch","entity":"Session"}"#, at: socket) }
        var answered = 0
        for index in 0..<20 {
            let reply = daemon.send(#"{"id":\#(100 + index),"op":"count","entity":"Session","limit":1}"#)
            if reply["ok"] == .bool(true) { answered += 1 }
        }
        let text = try #require(await huge.value, "no answer to the huge fetch")
        let refused = try #require(try JSONValue(parsing: text).objectValue)
        #expect(answered == 20, "other clients went unanswered during the huge fetch")
        let error = try #require(refused["error"]?.objectValue, "\(refused.keys)")
        #expect(error["code"]?.stringValue == "too_large")
        #expect(error["total"]?.intValue == total)
        #expect(error["limit"]?.stringValue == "maximumReplyObjects")
        #expect(error["value"]?.intValue == 50_000)
        #expect(error["message"]?.stringValue?.contains("offset") == true)
        let afterRefusal = daemon.residentBytes

        // A page at the limit is answered.
        let page = daemon.send(
            #"{"id":3,"op":"fetch","entity":"Session","sort":[{"key":"start"}],"offset":10000,"limit":50000}"#)
        #expect(page["objects"]?.arrayValue?.count == 50_000)
        #expect(page["total"]?.intValue == total)
        let afterPage = daemon.residentBytes
        print(
            "HugeReplyTests: VmRSS \(before / 1_048_576) MB before, \(afterRefusal / 1_048_576) MB after the refused "
                + "fetch, \(afterPage / 1_048_576) MB after a page of 50,000")
        #expect(afterRefusal - before < 16 * 1024 * 1024, "refusing grew the daemon by \(afterRefusal - before) bytes")
        #expect(afterPage - before < Self.allowedGrowth, "the daemon grew by \(afterPage - before) bytes")
        #expect(await daemon.stop())
    }
}
