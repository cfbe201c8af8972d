import AlmanacDaemon
import AlmanacWire
import Foundation
import Testing

/// A SQLite store reads its file as queries need it, so another process rewriting an attached file in place breaks
/// it until the watcher attaches the new version, and for good if the new version is bad. Under
/// scripts/load-with-churn.sh 547 fetches, counts and templates failed with `internal` in one second: every request
/// that reads `Session` reads every store. A request that fails on a store whose file changed under it sets that
/// store aside (as if the file had been replaced a moment earlier) and runs again.
@Suite("Files changed under their store")
struct FileChangedUnderStoreTests {
    /// Rewrites a file in place (the same inode, as an editor or `cp` over it does).
    static func rewrite(_ url: URL, with data: Data) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
    }

    @Test(arguments: ["garbage", "empty", "another schedule"])
    func aRequestSetsAsideAStoreWhoseFileChangedUnderIt(content: String) throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite", "swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let sqlite = fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite")
        let before = try #require(try fixture.request("count", ["entity": "Session"])["count"]?.intValue)
        let data: Data
        switch content {
        case "garbage": data = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        case "empty": data = Data()
        default: data = try Data(contentsOf: CoreFixture.samples.appendingPathComponent("plumbing-camp-2026.json"))
        }
        try Self.rewrite(sqlite, with: data)
        // The schedule file's sessions are still served; the SQLite file's are not.
        let count = try fixture.request("count", ["entity": "Session"])["count"]?.intValue
        #expect(count == 18, "\(before) sessions before")
        let fetched = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]], "limit": 50])
        #expect(fetched["objects"]?.arrayValue?.count == 18)
        let entry = fixture.core.library.entry(for: sqlite)
        #expect(entry?.store == nil)
        #expect(entry?.error?.contains("changed") == true)
        // Its next version is attached when the watcher reports it.
        let sample = CoreFixture.samples.appendingPathComponent("lunch-talks-2026.sqlite")
        try Self.rewrite(sqlite, with: try Data(contentsOf: sample))
        #expect(fixture.core.library.attach(sqlite, isWatcherEvent: true) == .attached)
        #expect(try fixture.request("count", ["entity": "Session"])["count"]?.intValue == before)
    }

    @Test func aStoreWhoseFileDidNotChangeIsNotSetAside() throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite"])
        defer { fixture.remove() }
        let sqlite = fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite")
        #expect(fixture.core.library.setAsideIfChangedUnderItsStore(sqlite) == false)
        #expect(fixture.core.library.entry(for: sqlite)?.store != nil)
    }
}
