import Foundation
import Glibc

extension ProcessRunner {
    /// A program that did not exit within its bound (it was killed).
    struct TimedOut: Error, CustomStringConvertible {
        var command: String
        var seconds: Double
        var description: String { "\(command) did not exit within \(seconds) s (killed)" }
    }

    /// Runs a program like ``run(_:arguments:environment:directory:)`` (standard output and error captured, input
    /// from /dev/null), but started with `posix_spawn` and waited for by polling `waitpid`, with a bound.
    ///
    /// Not `Process`: swift-corelibs-foundation learns that a child exited when a socket it hands the child
    /// closes, so a program that leaves a server running (tmux, `pg_ctl start`) can keep `Process` waiting for as
    /// long as the server runs, whatever the program itself does.
    ///
    /// - Parameter environment: the whole environment of the program; the test process's when nil.
    /// - Throws: ``TimedOut`` after killing the program when it runs longer than `seconds`; `POSIXError` when it
    ///   cannot be started.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]? = nil, within seconds: Double
    ) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "aw-spawn-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path
        let errPath = folder.appendingPathComponent("err").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard started == 0 else { throw POSIXError(POSIXErrorCode(rawValue: started) ?? .EIO) }

        let deadline = ContinuousClock.now + .seconds(seconds)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw TimedOut(command: ([executable] + arguments).joined(separator: " "), seconds: seconds)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let signal = status & 0x7F
        return Result(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
