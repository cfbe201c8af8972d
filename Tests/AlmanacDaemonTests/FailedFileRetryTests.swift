import AlmanacDaemon
import Foundation
import Synchronization
import Testing

/// The watcher's events that the daemon raises itself: a failed file is not retried until it changes (a failed attempt
/// can raise the very event that retries it: a Core Data store is opened read-write, closing it raises
/// IN_CLOSE_WRITE), and a deleted store's close after its detach leaves no entry behind.
@Suite("Failed files")
struct FailedFileRetryTests {
    @Test func anUnchangedFileThatFailedIsNotRetriedUntilItChanges() throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite"])
        defer { fixture.remove() }
        // A copy of an attached Core Data store has the same store identifier: it cannot be attached beside it.
        let copy = fixture.inbox.appendingPathComponent("lunch-talks-2026 (1).sqlite")
        try FileManager.default.copyItem(at: fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite"), to: copy)
        guard case .failed = fixture.core.library.attach(copy, isWatcherEvent: true) else {
            Issue.record("a copy of an attached store was attached")
            return
        }
        #expect(fixture.core.library.attach(copy, isWatcherEvent: true) == .ignored)
        // Asked explicitly (a rescan, a test), it is tried again.
        guard case .failed = fixture.core.library.attach(copy) else {
            Issue.record("a copy of an attached store was attached")
            return
        }
        // A new version is tried again.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: copy.path)
        guard case .failed = fixture.core.library.attach(copy, isWatcherEvent: true) else {
            Issue.record("a copy of an attached store was attached, or not tried")
            return
        }
    }

    @Test func theWatcherDoesNotLoopOnAFileItCannotAttach() async throws {
        let fixture = try CoreFixture(files: ["lunch-talks-2026.sqlite"])
        defer { fixture.remove() }
        let watcher = try DirectoryWatcher(folders: [fixture.inbox])
        defer { watcher.stop() }
        let copy = fixture.inbox.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: fixture.inbox.appendingPathComponent("lunch-talks-2026.sqlite"), to: copy)
        // Handle events as the daemon does, for two seconds after the first failed attempt; before the fix every
        // failed attempt raised another IN_CLOSE_WRITE, so this counted hundreds of attempts. The two seconds start at
        // the first attempt, not at the copy: under the thread sanitizer on a loaded machine the first event can take
        // longer than that to arrive.
        let attemptsSeen = AttemptCounter()
        let consumer = Task {
            for await event in watcher {
                if case .fileReady(let url) = event, url.lastPathComponent == "copy.sqlite",
                    case .failed = fixture.core.library.attach(url, isWatcherEvent: true)
                {
                    attemptsSeen.increment()
                }
            }
        }
        let giveUp = ContinuousClock.now + .seconds(60)
        while attemptsSeen.value == 0, ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .seconds(2))
        watcher.stop()
        await consumer.value
        let attempts = attemptsSeen.value
        // Tried once (the watcher did report the file), and not again and again.
        #expect(attempts >= 1, "the watcher never reported the copy in 60 s")
        #expect(attempts <= 2, "\(attempts) failed attempts in 2 s")
    }

    @Test func aWatcherEventForAVanishedFileLeavesNoEntryBehind() throws {
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        // Closing a deleted store's file after its detach raises IN_CLOSE_WRITE for a name that is gone.
        let gone = fixture.inbox.appendingPathComponent("gone.sqlite")
        #expect(fixture.core.library.attach(gone, isWatcherEvent: true) == .ignored)
        #expect(fixture.core.library.entry(for: gone) == nil)
        // Asked explicitly, the failure is reported and recorded.
        guard case .failed = fixture.core.library.attach(gone) else {
            Issue.record("a missing file was attached")
            return
        }
        #expect(fixture.core.library.entry(for: gone)?.error != nil)
    }
}

/// A count shared between the test and its event consumer (an atomic, which the thread sanitizer sees).
private final class AttemptCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func increment() { count.add(1, ordering: .releasing) }
}
