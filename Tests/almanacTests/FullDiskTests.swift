import AlmanacWire
import Foundation
import Glibc
import Testing

/// Writes on a full file system: the real daemon with its state folder (or its inbox) on a small `tmpfs`. A write
/// that does not fit answers `storage_full`; every write answered `ok` is kept; reads go on; the files stay sound;
/// writes succeed again once space is freed, without a restart.
@Suite(
    .enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root (CI runs as root): full-disk tests skipped"),
    .timeLimit(.minutes(3)))
struct FullDiskTests {
    static let samples = DaemonProcessTests.samples

    /// A scratch folder with an inbox and a socket path, removed by `remove()`.
    struct Scratch {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID().uuidString)")
        let socket = "/tmp/fd-\(UUID().uuidString.prefix(8).lowercased()).sock"
        var inbox: URL { root.appendingPathComponent("inbox") }

        init(samples: [String]) throws {
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            for name in samples {
                try FileManager.default.copyItem(
                    at: FullDiskTests.samples.appendingPathComponent(name), to: inbox.appendingPathComponent(name))
            }
        }

        func remove() {
            try? FileManager.default.removeItem(at: root)
            unlink(socket)
        }
    }

    static func note(_ index: Int) -> String {
        let text = "note \(index) " + String(repeating: "x", count: 3000)
        return #"{"id":\#(index),"op":"insert","entity":"Note","values":{"text":"\#(text)"}}"#
    }

    @Test func thePersonalStoreOnAFullDiskAnswersStorageFullLosesNothingAndRecovers() async throws {
        let disk = try SmallFileSystem(kilobytes: 1024)
        defer { disk.unmount() }
        let scratch = try Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let state = disk.url.appendingPathComponent("state")
        let daemon = try ChildDaemon(inbox: scratch.inbox, state: state, socket: scratch.socket)
        let sessions = daemon.send(#"{"id":0,"op":"count","entity":"Session"}"#)["count"]?.intValue
        #expect((sessions ?? 0) > 0, "the daemon serves no sessions")

        // Leave 96 KB, then insert notes of 3 KB until one does not fit.
        let filler = disk.fill(leaving: 96 * 1024)
        var acknowledged: [String] = []
        var refusal: JSONObject?
        for index in 1...400 {
            let reply = daemon.send(Self.note(index))
            if let uri = reply["uri"]?.stringValue {
                acknowledged.append(uri)
                continue
            }
            refusal = reply
            break
        }
        let error = try #require(refusal?["error"]?.objectValue, "400 notes of 3 KB fit in 96 KB")
        #expect(error["code"]?.stringValue == "storage_full", "\(error)")
        #expect(error["message"]?.stringValue?.contains("full") == true)
        #expect(error["store"]?.stringValue?.hasSuffix("personal.sqlite") == true)
        #expect(!acknowledged.isEmpty, "not one note fitted: the test proves nothing")

        // Still full: more writes are refused the same way, reads go on and see exactly the acknowledged notes.
        for index in 401...405 {
            #expect(ChildDaemon.errorCode(daemon.send(Self.note(index))) == "storage_full")
        }
        #expect(daemon.send(#"{"id":1,"op":"count","entity":"Note"}"#)["count"]?.intValue == Int64(acknowledged.count))
        #expect(daemon.send(#"{"id":2,"op":"count","entity":"Session"}"#)["count"]?.intValue == sessions)
        let fetched = daemon.send(#"{"id":3,"op":"fetch","entity":"Session","limit":3}"#)
        #expect(fetched["objects"]?.arrayValue?.count == 3, "\(fetched)")

        // Space comes back: the same daemon writes again.
        try FileManager.default.removeItem(at: filler)
        let after = daemon.send(Self.note(500))
        #expect(after["ok"] == .bool(true), "\(after)")
        if let uri = after["uri"]?.stringValue { acknowledged.append(uri) }

        // Every acknowledged note survives the daemon's death (SIGKILL: no clean close) and a restart, and the
        // file is sound.
        kill(daemon.process.processIdentifier, SIGKILL)
        _ = await daemon.process.exited(within: 30)
        let file = try SQLiteFile(state.appendingPathComponent("personal.sqlite"))
        #expect(try file.integrityCheck() == ["ok"])
        let restarted = try ChildDaemon(inbox: scratch.inbox, state: state, socket: scratch.socket)
        #expect(
            restarted.send(#"{"id":4,"op":"count","entity":"Note"}"#)["count"]?.intValue
                == Int64(acknowledged.count))
        for uri in acknowledged {
            let reply = restarted.send(#"{"id":5,"op":"get","uri":"\#(uri)"}"#)
            #expect(reply["ok"] == .bool(true), "\(uri) was acknowledged and is gone: \(reply)")
        }
        #expect(await restarted.stop())
    }

    /// A writable Core Data store in the inbox (XML, binary, SQLite) on a full disk: the insert answers
    /// `storage_full`, the file keeps its bytes and no temporary file stays beside it; reads go on; once space is
    /// freed the same daemon saves into it.
    @Test(arguments: ["devcon-2026-day1.xml", "community-meetup-2026.binary", "lunch-talks-2026.sqlite"])
    func aCoreDataStoreInTheInboxKeepsItsFileWhenTheDiskIsFull(_ name: String) async throws {
        let disk = try SmallFileSystem(kilobytes: 512)
        defer { disk.unmount() }
        let scratch = try Scratch(samples: [])
        defer { scratch.remove() }
        let inbox = disk.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let file = inbox.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent(name), to: file)
        let daemon = try ChildDaemon(
            inbox: inbox, state: scratch.root.appendingPathComponent("state"), socket: scratch.socket)
        let countRooms = #"{"id":1,"op":"count","entity":"Room","stores":["\#(name)"]}"#
        let rooms = try #require(daemon.send(countRooms)["count"]?.intValue, "\(name) is not served")
        let insert = #"{"id":2,"op":"insert","entity":"Room","store":"\#(name)","values":{"name":"Overflow"}}"#
        let before = try Data(contentsOf: file)

        let filler = disk.fill(leaving: 0)
        let refused = daemon.send(insert)
        #expect(ChildDaemon.errorCode(refused) == "storage_full", "\(refused)")
        #expect(try Data(contentsOf: file) == before, "the failed save changed \(name)")
        let left = try FileManager.default.contentsOfDirectory(atPath: inbox.path).filter { $0 != name }
        #expect(left.allSatisfy { !$0.hasSuffix(".tmp") }, "temporary files left: \(left)")
        #expect(daemon.send(countRooms)["count"]?.intValue == rooms)

        try FileManager.default.removeItem(at: filler)
        let saved = daemon.send(insert)
        #expect(saved["ok"] == .bool(true), "\(saved)")
        #expect(daemon.send(countRooms)["count"]?.intValue == rooms + 1)
        #expect(try Data(contentsOf: file) != before)
        #expect(await daemon.stop())
    }
}
