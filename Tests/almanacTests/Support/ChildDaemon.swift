import AlmanacWire
import Foundation
import Glibc

/// The real `almanacd` in a child process on given folders, ready (READY=1) when made; requests go straight to its
/// socket, one connection each. ``LiveDaemon`` runs the client against one.
final class ChildDaemon {
    let process: Process
    let socket: String
    private let notify = DaemonProcessTests.NotifySocket()

    /// Starts the daemon watching `inbox` with `state` as its state folder and waits for READY=1; `arguments` are
    /// added to the command line.
    init(inbox: URL, state: URL, socket: String, arguments: [String] = []) throws {
        self.socket = socket
        process = try DaemonProcessTests.launch(
            try DaemonProcessTests.binary("almanacd"),
            ["--watch", inbox.path, "--state", state.path, "--socket", socket] + arguments,
            environment: ["NOTIFY_SOCKET": notify.path, "HOME": state.path, "PATH": "/usr/bin:/bin"])
        _ = notify.wait(for: "READY=1")
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// The reply to one request line, parsed (an empty object when there is none).
    func send(_ line: String) -> JSONObject {
        guard let text = Self.request(line, at: socket), let object = try? JSONValue(parsing: text).objectValue
        else { return [:] }
        return object
    }

    /// The reply line to one request on a connection of its own; nil when the daemon does not answer within 60 s.
    static func request(_ line: String, at path: String) -> String? {
        UnixSocketConnection.exchange(line, at: path, receiveTimeout: 60)
    }

    /// The error code of a reply, nil for `ok`.
    static func errorCode(_ reply: JSONObject) -> String? { reply["error"]?.objectValue?["code"]?.stringValue }

    /// The daemon's resident memory (VmRSS) in bytes, from /proc.
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// SIGTERM, then waits for the exit; returns whether it stopped in time.
    func stop() async -> Bool {
        kill(process.processIdentifier, SIGTERM)
        return await process.exited(within: 60)
    }
}
