import AlmanacDaemon
import Foundation
import Testing

/// The changes of a conference's latest release are kept while a file serves the conference. A conference without
/// an acronym or calendar name is known by its file name, so under churn every replaced file added an entry, with
/// both releases' sessions, that nothing removed: ~30 KB of heap per change in the watched folder.
@Suite("Changes retention")
struct ChangesRetentionTests {
    /// An iCalendar schedule without `X-WR-CALNAME`: its conference is known by its file name.
    static func namelessCalendar(renaming title: String? = nil) throws -> Data {
        let sample = CoreFixture.samples.appendingPathComponent("open-data-evening-2026.ics")
        var text = try String(contentsOf: sample, encoding: .utf8)
            .replacingOccurrences(of: "X-WR-CALNAME:Open Data Evening 2026\r\n", with: "")
            .replacingOccurrences(of: "X-WR-CALNAME:Open Data Evening 2026\n", with: "")
        if let title { text = text.replacingOccurrences(of: "Testing daemons end to end", with: title) }
        return Data(text.utf8)
    }

    @Test func aDeletedFilesChangesAreForgotten() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let library = fixture.core.library
        for index in 1...20 {
            let file = fixture.inbox.appendingPathComponent("churn-\(index).ics")
            try Self.namelessCalendar().write(to: file)
            #expect(library.attach(file) == .attached)
            try Self.namelessCalendar(renaming: "Testing daemons, revisited").write(to: file)
            #expect(library.attach(file) == .replaced)
            #expect(library.conferencesWithChanges == ["churn-\(index)"])
            try FileManager.default.removeItem(at: file)
            #expect(library.detach(file) == .detached)
        }
        #expect(library.conferencesWithChanges.isEmpty)
    }

    @Test func changesStayWhileAFileServesTheConference() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        let library = fixture.core.library
        let file = fixture.inbox.appendingPathComponent("swift-server-days-2026.xml")
        let original = try String(contentsOf: file, encoding: .utf8)
        let revised = original.replacingOccurrences(
            of: "Structured concurrency in practice", with: "Structured concurrency, revisited")
        try Data(revised.utf8).write(to: file)
        #expect(library.attach(file) == .replaced)
        // Another file of the same conference comes and goes: the changes stay.
        let copy = fixture.inbox.appendingPathComponent("ssd26-copy.xml")
        try Data(original.utf8).write(to: copy)
        library.attach(copy)
        try FileManager.default.removeItem(at: copy)
        library.detach(copy)
        #expect(library.conferencesWithChanges == ["ssd26"])
        #expect(try fixture.request("changes", ["conference": "ssd26"])["changed"]?.arrayValue?.count == 1)
        // A file replaced by another conference's schedule no longer serves the first one.
        try Self.namelessCalendar().write(to: file)
        #expect(library.attach(file) == .replaced)
        #expect(!library.conferencesWithChanges.contains("ssd26"))
        // Gone altogether.
        try FileManager.default.removeItem(at: file)
        library.detach(file)
        #expect(library.conferencesWithChanges.isEmpty)
    }
}
