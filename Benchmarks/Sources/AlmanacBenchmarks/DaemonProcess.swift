import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Other programs the daemon workloads start: redis-server, redis-benchmark, almanacd.
enum Subprocess {
    /// The path of the executable `name` on the PATH or in the usual system folders.
    static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            + ["/usr/sbin", "/usr/local/bin", "/usr/bin"]
        {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs a command to completion (killed after `timeout`), returning its standard output.
    static func runCapturing(_ executable: String, _ arguments: [String], timeout: Double) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { terminate(process) }
        try? handle.close()
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then SIGKILL after 5 s; waits for the process.
    static func terminate(_ process: Process) {
        guard process.processIdentifier > 0 else { return }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An `almanacd` started on an inbox with a fake `NOTIFY_SOCKET` bound here, so READY=1 is seen when it is sent.
final class DaemonProcess {
    let process = Process()
    let socketPath: String
    let notifyPath: String
    let notifyFD: Int32
    let logURL: URL
    private var startNanoseconds: UInt64 = 0
    private var stopped = false

    /// Starts `binary` on `inbox` with its state and socket in `root`; `extraArguments` follow the usual ones.
    init(binary: String, root: URL, inbox: URL, extraArguments: [String] = []) throws {
        let state = root.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        socketPath = root.appendingPathComponent("almanac.sock").path
        notifyPath = root.appendingPathComponent("notify.sock").path
        logURL = root.appendingPathComponent("almanacd.log")
        unlink(notifyPath)
        notifyFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard notifyFD >= 0 else { throw BenchError("cannot create the notify socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(notifyPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(notifyFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(notifyFD)
            throw BenchError("cannot bind \(notifyPath): \(String(cString: strerror(errno)))")
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--watch", inbox.path, "--state", state.path, "--socket", socketPath] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        environment.removeValue(forKey: "WATCHDOG_USEC")
        environment.removeValue(forKey: "LISTEN_FDS")
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        startNanoseconds = DispatchTime.now().uptimeNanoseconds
        do {
            try process.run()
        } catch {
            close(notifyFD)
            throw error
        }
        try? log.close()
    }

    deinit { stop() }

    /// Waits for READY=1; returns the seconds since the process was started.
    func waitUntilReady(timeout: Double) throws -> Double {
        let deadline = startNanoseconds + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw BenchError("no READY=1 within \(timeout) s; log: \(logTail())") }
            guard process.isRunning else {
                throw BenchError("almanacd exited (\(process.terminationStatus)); log: \(logTail())")
            }
            var descriptor = pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(200, (deadline - now) / 1_000_000 + 1)))
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress!, $0.count, 0) }
                let received = DispatchTime.now().uptimeNanoseconds
                if count > 0 {
                    let message = String(decoding: buffer[0..<count], as: UTF8.self)
                    if message.split(separator: "\n").contains("READY=1") {
                        return Double(received - startNanoseconds) / 1e9
                    }
                }
            }
        }
    }

    /// VmRSS from /proc/PID/status, in MB (10^6 bytes).
    func residentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024 / 1e6
    }

    func logTail() -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return String(text.suffix(1500))
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        Subprocess.terminate(process)
        close(notifyFD)
        unlink(notifyPath)
    }
}
