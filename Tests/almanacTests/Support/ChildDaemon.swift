import AlmanacWire
import Foundation
import Glibc

/// The real `almanacd` in a child process on given folders, ready (READY=1) when made; requests go straight to its
/// socket, one connection each.
final class ChildDaemon {
    let process: Process
    let socket: String
    private let notify = DaemonProcessTests.NotifySocket()

    /// Starts the daemon watching `inbox` with `state` as its state folder and waits for READY=1.
    init(inbox: URL, state: URL, socket: String) throws {
        self.socket = socket
        process = try DaemonProcessTests.launch(
            try DaemonProcessTests.binary("almanacd"),
            ["--watch", inbox.path, "--state", state.path, "--socket", socket],
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
    /// Replies of many megabytes are read in linear time (each chunk is searched for the newline once).
    static func request(_ line: String, at path: String) -> String? {
        guard let fd = UnixSocketConnection.open(path, receiveTimeout: 60) else { return nil }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        guard Glibc.send(fd, bytes, bytes.count, 0) == bytes.count else { return nil }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            if let end = buffer.prefix(count).firstIndex(of: UInt8(ascii: "\n")) {
                reply += buffer.prefix(end)
                return String(decoding: reply, as: UTF8.self)
            }
            reply += buffer.prefix(count)
        }
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
