import AlmanacDaemon
import AlmanacWire
import Foundation
import Logging
import ServiceLifecycle

/// Runs the built `almanac` binary, and a live server on a temporary Unix socket that answers like almanacd.
enum FakeDaemon {
    /// The `almanac` executable in the products folder next to the test bundle.
    static func almanacBinary() throws -> String {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for folder in candidates {
            let path = folder.appendingPathComponent("almanac").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BinaryNotFound(searched: candidates.map(\.path))
    }

    struct BinaryNotFound: Error { var searched: [String] }

    /// Runs `almanac` with a clean environment (TZ=UTC unless given, so the machine's zone is known).
    static func almanac(
        _ arguments: [String],
        socket: String?,
        extraEnvironment: [String: String] = [:]
    ) async throws -> ProcessRunner.Result {
        var environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8", "TZ": "UTC"]
        environment.merge(extraEnvironment) { $1 }
        if let socket { environment["ALMANAC_SOCKET"] = socket }
        return try await ProcessRunner.run(try almanacBinary(), arguments: arguments, environment: environment)
    }

    /// Serves `handler` on a fresh socket while `body` runs; readiness is signalled by the server, never slept for.
    static func serve(_ handler: FakeScheduleHandler = FakeScheduleHandler(), _ body: (String) async throws -> Void)
        async throws
    {
        let path = "/tmp/aw-\(UUID().uuidString.prefix(8).lowercased()).sock"
        let (ready, continuation) = AsyncStream<Void>.makeStream()
        let logger = Logger(label: "test.e2e")
        let server = WireServer(
            configuration: ServerConfiguration(socketPath: path),
            handler: handler,
            logger: logger
        ) { _ in continuation.yield() }
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await _ in ready { break }
            do {
                try await body(path)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
