import AlmanacDaemon
import Foundation
import Testing

/// A watcher event for an attached file that has not changed reads nothing: the daemon raises such events itself
/// (closing a replaced SQLite store's read-write connection raises IN_CLOSE_WRITE), and reading the file again
/// replaced the store, whose close raised the next event, hundreds of times a second.
@Suite("Unchanged files")
struct UnchangedFileTests {
    @Test func anAttachedFileIsNotReadAgainUntilItChanges() throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite"])
        defer { fixture.remove() }
        let file = fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite")
        #expect(fixture.core.library.entry(for: file)?.store != nil)
        #expect(fixture.core.library.attach(file, isWatcherEvent: true) == .ignored)
        // Asked explicitly (a rescan, a test), it is read again.
        #expect(fixture.core.library.attach(file) == .replaced)
        #expect(fixture.core.library.attach(file, isWatcherEvent: true) == .ignored)
        // A new version is read.
        let later: [FileAttributeKey: Any] = [.modificationDate: Date(timeIntervalSinceNow: 60)]
        try FileManager.default.setAttributes(later, ofItemAtPath: file.path)
        #expect(fixture.core.library.attach(file, isWatcherEvent: true) == .replaced)
        #expect(fixture.core.library.attach(file, isWatcherEvent: true) == .ignored)
        // Detached and put back (the same version), it is attached again.
        #expect(fixture.core.library.detach(file) == .detached)
        #expect(fixture.core.library.attach(file, isWatcherEvent: true) == .attached)
    }

    @Test func theWatcherDoesNotLoopOnAReplacedSQLiteStore() async throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite"])
        defer { fixture.remove() }
        let watcher = try DirectoryWatcher(folders: [fixture.inbox])
        defer { watcher.stop() }
        // Handle events as the daemon does, until two seconds after the first replacement.
        let consumer = Task {
            var replacements = 0
            for await event in watcher {
                switch event {
                case .fileReady(let url):
                    if fixture.core.library.attach(url, isWatcherEvent: true) == .replaced { replacements += 1 }
                case .fileRemoved(let url):
                    fixture.core.library.detach(url)
                case .rescan(let folder):
                    fixture.core.library.rescan(folder)
                }
            }
            return replacements
        }
        // A new version renamed over the attached file: one replacement, whose closing of the old store's
        // connection raised the event that replaced the store again, and so on.
        let file = fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite")
        let original = fixture.core.library.entry(for: file)?.store
        let part = fixture.inbox.appendingPathComponent(".lunch-talks-2026.sqlite.part")
        let sample = CoreFixture.samples.appendingPathComponent("lunch-talks-2026.sqlite")
        try FileManager.default.copyItem(at: sample, to: part)
        #expect(rename(part.path, file.path) == 0)
        // A busy machine (the suites run in parallel) may take a while to deliver the first event: wait for the
        // replacement up to 30 s, then give a loop two seconds to show itself.
        let patience = ContinuousClock.now + .seconds(30)
        while fixture.core.library.entry(for: file)?.store === original, ContinuousClock.now < patience {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(2))
        watcher.stop()
        let replacements = await consumer.value
        #expect(replacements >= 1, "the new version was not read")
        #expect(replacements <= 2, "\(replacements) replacements in 2 s")
    }
}
