import AlmanacDaemon
import Foundation
import Testing

@Suite("Directory watcher")
struct DirectoryWatcherTests {
    /// Collects events until `count` arrived or two seconds passed.
    func collect(_ watcher: DirectoryWatcher, count: Int, during body: () throws -> Void) async throws
        -> [DirectoryEvent]
    {
        let task = Task {
            var events: [DirectoryEvent] = []
            for await event in watcher {
                events.append(event)
                if events.count >= count { break }
            }
            return events
        }
        try await Task.sleep(for: .milliseconds(50))
        try body()
        let timeout = Task {
            try await Task.sleep(for: .seconds(3))
            watcher.stop()
        }
        let events = await task.value
        timeout.cancel()
        return events
    }

    func makeFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func reportsCompleteFilesAndRemovalsButNotTemporaryOnes() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let watcher = try DirectoryWatcher(folders: [folder])
        let file = folder.appendingPathComponent("fosdem.xml")
        let events = try await collect(watcher, count: 3) {
            try Data("a".utf8).write(to: folder.appendingPathComponent(".hidden"))
            try Data("a".utf8).write(to: folder.appendingPathComponent("draft.xml.part"))
            try Data("a".utf8).write(to: folder.appendingPathComponent("notes.txt~"))
            try Data("<schedule/>".utf8).write(to: folder.appendingPathComponent("x.tmp"))
            try FileManager.default.moveItem(at: folder.appendingPathComponent("x.tmp"), to: file)
            try FileManager.default.removeItem(at: file)
            let direct = folder.appendingPathComponent("direct.ics")
            _ = FileManager.default.createFile(atPath: direct.path, contents: Data("BEGIN:VCALENDAR".utf8))
        }
        watcher.stop()
        #expect(events.count == 3)
        #expect(events.first == .fileReady(file.standardizedFileURL))
        #expect(events.dropFirst().first == .fileRemoved(file.standardizedFileURL))
        #expect(events.last == .fileReady(folder.appendingPathComponent("direct.ics").standardizedFileURL))
    }

    @Test func survivesTheFolderBeingRemovedAndCreatedAgain() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let watcher = try DirectoryWatcher(folders: [folder])
        let events = try await collect(watcher, count: 3) {
            try FileManager.default.removeItem(at: folder)
            Thread.sleep(forTimeInterval: 0.1)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            Thread.sleep(forTimeInterval: 0.1)
            try Data("x".utf8).write(to: folder.appendingPathComponent("again.json"))
        }
        watcher.stop()
        #expect(events.contains(.rescan(folder.standardizedFileURL)))
        #expect(events.last == .fileReady(folder.appendingPathComponent("again.json").standardizedFileURL))
    }

    @Test func filterRejectsEditorAndPartialFiles() {
        let filter = WatchFilter()
        for name in [".x", "a~", "a.swp", "a.TMP", "a.part", "#a#", "a.crdownload", "db.sqlite-wal"] {
            #expect(!filter.accepts(name), "\(name)")
        }
        for name in ["fosdem.xml", "camp.json", "lca.ics", "personal.sqlite", "day1.binary"] {
            #expect(filter.accepts(name), "\(name)")
        }
    }
}
