import AlmanacWire
import Foundation
import Glibc
import Testing

/// I/O errors under the real daemon, injected by strace attached to it (`-P FILE -e inject=…:error=EIO`, only the
/// named files' calls fail): a write whose store cannot be written answers `io_error` and changes nothing; a
/// schedule file that cannot be read keeps its previous release serving. Once strace detaches, all is well again.
@Suite(
    .enabled(if: Strace.works && geteuid() == 0, "strace must be installed and may attach to a process (root)"),
    .timeLimit(.minutes(3)))
struct IOErrorTests {
    /// strace attached to a running process, failing the named calls on the named files with EIO until `detach()`.
    ///
    /// Spawned with an empty signal mask: the test process blocks SIGTERM and SIGINT in the threads that start
    /// children, and strace, which keeps the mask it inherits, would never see the signal that makes it detach.
    final class Injection {
        private(set) var pid: pid_t = 0
        private let log: URL

        init(pid target: Int32, files: [String], calls: String, from first: Int = 1, scratch: URL) async throws {
            log = scratch.appendingPathComponent("strace-\(UUID().uuidString.prefix(8)).err")
            let arguments =
                [
                    try #require(Strace.path), "-f", "-p", "\(target)", "-e", "trace=\(calls)", "-e",
                    "inject=\(calls):error=EIO:when=\(first)+", "-o", "/dev/null",
                ] + files.flatMap { ["-P", $0] }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 2, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var argv = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
            try #require(status == 0, "posix_spawn strace: \(String(cString: strerror(status)))")
            // strace says "Process N attached with M threads" once every thread is traced.
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOf: log, encoding: .utf8), text.contains("attached") { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("strace did not attach within 30 s")
        }

        /// SIGTERM: strace detaches and exits. Returns whether it did within 30 s (SIGKILL otherwise).
        @discardableResult
        func detach() async -> Bool {
            guard pid > 0 else { return true }
            kill(pid, SIGTERM)
            defer { pid = 0 }
            let deadline = ContinuousClock.now + .seconds(30)
            var status: Int32 = 0
            while ContinuousClock.now < deadline {
                if waitpid(pid, &status, WNOHANG) == pid { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            return false
        }

        deinit {
            if pid > 0 {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
    }

    @Test func writesThatCannotReachThePersonalStoreAnswerIOErrorAndChangeNothing() async throws {
        let scratch = try FullDiskTests.Scratch(samples: ["swift-server-days-2026.xml"])
        defer { scratch.remove() }
        let state = scratch.root.appendingPathComponent("state")
        let daemon = try ChildDaemon(inbox: scratch.inbox, state: state, socket: scratch.socket)
        let first = daemon.send(FullDiskTests.note(1))
        let kept = try #require(first["uri"]?.stringValue, "\(first)")

        let store = state.appendingPathComponent("personal.sqlite").path
        let injection = try await Injection(
            pid: daemon.process.processIdentifier, files: [store, store + "-wal", store + "-journal"],
            calls: "write,pwrite64,fsync,fdatasync", scratch: scratch.root)
        let failed = daemon.send(FullDiskTests.note(2))
        let error = try #require(failed["error"]?.objectValue, "\(failed)")
        #expect(error["code"]?.stringValue == "io_error", "\(error)")
        #expect(error["store"]?.stringValue == store)
        // Reads go on, and the failed insert left nothing behind.
        #expect(daemon.send(#"{"id":3,"op":"count","entity":"Note"}"#)["count"]?.intValue == 1)
        #expect(daemon.send(#"{"id":4,"op":"get","uri":"\#(kept)"}"#)["ok"] == .bool(true))
        #expect(await injection.detach(), "strace did not detach within 30 s of SIGTERM")

        let again = daemon.send(FullDiskTests.note(5))
        #expect(again["ok"] == .bool(true), "\(again)")
        #expect(daemon.send(#"{"id":6,"op":"count","entity":"Note"}"#)["count"]?.intValue == 2)
        #expect(await daemon.stop())
        #expect(try SQLiteFile(URL(fileURLWithPath: store)).integrityCheck() == ["ok"])
    }

    /// A new version of a schedule file that cannot be read (EIO on every read of it, or on every read after the
    /// first, which sniffs its format) leaves the previous release serving, marked `stale` with the reason; once the
    /// file reads again, its next version is served.
    @Test(arguments: ["swift-server-days-2026.xml", "community-meetup-2026.binary"], [1, 2])
    func aScheduleFileThatCannotBeReadKeepsItsPreviousRelease(_ name: String, firstFailingRead: Int) async throws {
        let scratch = try FullDiskTests.Scratch(samples: [name])
        defer { scratch.remove() }
        let daemon = try ChildDaemon(
            inbox: scratch.inbox, state: scratch.root.appendingPathComponent("state"), socket: scratch.socket)
        let file = scratch.inbox.appendingPathComponent(name)
        let sessions = #"{"id":1,"op":"count","entity":"Session","stores":["\#(name)"]}"#
        let served = try #require(daemon.send(sessions)["count"]?.intValue, "\(name) is not served")
        #expect(served > 0)

        let injection = try await Injection(
            pid: daemon.process.processIdentifier, files: [file.path], calls: "read,pread64",
            from: firstFailingRead, scratch: scratch.root)
        // A new version, renamed into place as a publisher would: one session fewer is enough to tell them apart.
        let staged = scratch.root.appendingPathComponent("staged")
        try FileManager.default.copyItem(at: file, to: staged)
        rename(staged.path, file.path)
        var entry: JSONObject?
        for _ in 0..<250 {
            let stores = daemon.send(#"{"id":2,"op":"stores"}"#)["stores"]?.arrayValue ?? []
            entry = stores.compactMap(\.objectValue).first { $0["file"]?.stringValue == file.path }
            if entry?["error"]?.stringValue != nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(entry?["status"]?.stringValue == "stale", "\(String(describing: entry))")
        #expect(entry?["error"]?.stringValue?.contains("read") == true, "\(String(describing: entry))")
        #expect(daemon.send(sessions)["count"]?.intValue == served, "the previous release is not served")
        #expect(await injection.detach(), "strace did not detach within 30 s of SIGTERM")

        // Readable again: the next version replaces the previous release.
        try FileManager.default.copyItem(at: file, to: staged)
        rename(staged.path, file.path)
        var status: String?
        for _ in 0..<250 {
            let stores = daemon.send(#"{"id":3,"op":"stores"}"#)["stores"]?.arrayValue ?? []
            entry = stores.compactMap(\.objectValue).first { $0["file"]?.stringValue == file.path }
            status = entry?["status"]?.stringValue
            if status == "serving" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(status == "serving", "\(String(describing: entry))")
        #expect(daemon.send(sessions)["count"]?.intValue == served)
        #expect(await daemon.stop())
    }
}
