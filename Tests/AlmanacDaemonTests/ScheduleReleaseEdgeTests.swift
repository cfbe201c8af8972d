import AlmanacDaemon
import AlmanacWire
import Foundation
import Testing

/// The schedule library's rarer paths: a settings change that meets a file no longer readable, and a newer release
/// set aside because its file changed under it.
@Suite("Schedule releases: settings meeting unreadable files, set-aside releases")
struct ScheduleReleaseEdgeTests {
    func stores(_ fixture: CoreFixture) throws -> [WireResponse.StoreInfo] {
        try WireResponse.Stores(json: try fixture.request("stores")).stores
    }

    func titles(_ fixture: CoreFixture) throws -> [String]? {
        try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]]])["objects"]?
            .arrayValue?.compactMap { $0["values"]?["title"]?.stringValue }
    }

    func starts(_ fixture: CoreFixture, in zone: String) throws -> [String]? {
        try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]], "properties": ["start"]])[
            "objects"]?
            .arrayValue?.compactMap { $0["values"]?["start"]?.stringValue.flatMap(WireDate.date(from:)) }
            .map { WireDate.string(from: $0, in: TimeZone(identifier: zone)) }
    }

    /// Rewrites a file in place (same inode, new size and time), as an editor or a failing download would.
    func rewrite(_ url: URL, with text: String) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        // A later modification time even on file systems with coarse timestamps.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: url.path)
    }

    @Test func newSettingsForAFileNoLongerReadableKeepItsEarlierReadingServing() throws {
        let file = FrabSample.xml(
            acronym: "tc", title: "Test Conference",
            events: [.init(guid: "k", start: "10:00", title: "Keynote")])
        let fixture = try CoreFixture(
            files: [], written: ["tc.xml": file], settings: #"{"files": {"tc*": {"timeZone": "Europe/Berlin"}}}"#)
        defer { fixture.remove() }
        let url = fixture.inbox.appendingPathComponent("tc.xml")
        #expect(try starts(fixture, in: "Europe/Berlin") == ["2021-02-06T10:00:00+01:00"])

        // The file turns unreadable, then the settings change before the watcher has said anything.
        try rewrite(url, with: "<schedule><conference><title>cut off")
        let outcomes = fixture.core.library.updateFileSettings([FileSettings(pattern: "tc*", timeZone: "Asia/Tokyo")])
        let outcome = try #require(outcomes.first { $0.0.lastPathComponent == "tc.xml" }?.1)
        guard case .failed(let message) = outcome else {
            Issue.record("expected the re-read to fail, got \(outcome)")
            return
        }
        #expect(!message.isEmpty)

        // The earlier reading keeps serving, with its earlier zone; the listing says why it is stale.
        #expect(try titles(fixture) == ["Keynote"])
        #expect(try starts(fixture, in: "Europe/Berlin") == ["2021-02-06T10:00:00+01:00"])
        let entry = try #require(try stores(fixture).first { $0.file.hasSuffix("/tc.xml") })
        #expect(entry.status == .stale)
        #expect(entry.error?.isEmpty == false)
        #expect(entry.timeZone == "Europe/Berlin")

        // A readable version again: read with the new settings.
        try rewrite(url, with: file)
        #expect(fixture.core.library.attach(url) == .replaced)
        #expect(try starts(fixture, in: "Asia/Tokyo") == ["2021-02-06T10:00:00+09:00"])
        let after = try #require(try stores(fixture).first { $0.file.hasSuffix("/tc.xml") })
        #expect(after.status == .serving && after.error == nil && after.timeZone == "Asia/Tokyo")
    }

    @Test func aNewerReleaseSetAsideBringsTheOlderBackUntilItIsReadableAgain() throws {
        let fixture = try CoreFixture(
            files: [],
            written: ["tc.xml": ScheduleTruthTests.releaseTwo, "tc (old).xml": ScheduleTruthTests.releaseOne])
        defer { fixture.remove() }
        let newer = fixture.inbox.appendingPathComponent("tc.xml")
        #expect(try titles(fixture) == ["Opening", "Closing", "Added later"])

        // The newer file is rewritten in place: its store is set aside, and the older release serves again.
        try rewrite(newer, with: "not a schedule")
        #expect(fixture.core.library.setAsideIfChangedUnderItsStore(newer))
        #expect(try titles(fixture) == ["Opening", "Removed later", "Closing"])
        var listed = try stores(fixture)
        let older = try #require(listed.first { $0.file.hasSuffix("tc (old).xml") })
        #expect(older.status == .serving && older.shadowedBy == nil)
        let setAside = try #require(listed.first { $0.file.hasSuffix("/tc.xml") })
        #expect(setAside.status == .failed)

        // Its next version is unreadable: the older release keeps serving.
        if case .failed = fixture.core.library.attach(newer) {
        } else {
            Issue.record("an unreadable file should fail to attach")
        }
        #expect(try titles(fixture) == ["Opening", "Removed later", "Closing"])

        // Readable again: the newer release wins once more, and the older one is shadowed.
        try rewrite(newer, with: ScheduleTruthTests.releaseTwo)
        #expect(fixture.core.library.attach(newer) == .attached)
        #expect(try titles(fixture) == ["Opening", "Closing", "Added later"])
        listed = try stores(fixture)
        #expect(listed.first { $0.file.hasSuffix("tc (old).xml") }?.status == .shadowed)
        #expect(listed.first { $0.file.hasSuffix("/tc.xml") }?.status == .serving)
    }
}
