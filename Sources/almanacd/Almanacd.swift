import AlmanacDaemon
import ArgumentParser
import Foundation
import Logging

/// `almanacd`: the schedule aggregator daemon.
@main
struct Almanacd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "almanacd",
        abstract: "Serve one timetable from a folder of schedule files over a Unix socket.",
        discussion: """
            Watches folders for schedule files (Core Data stores, frab/Pentabarf XML, frab JSON, iCalendar), \
            attaches each as a store, and answers newline-delimited JSON requests on a Unix socket. \
            Run from a checkout with no arguments to serve Data/schedules. SIGHUP rescans; SIGTERM stops gracefully.
            """)

    @Option(name: .customLong("watch"), help: "A folder to watch (repeatable). Default: Data/schedules in a checkout.")
    var watch: [String] = []

    @Option(help: "The state folder (personal store, almanacd.json).")
    var state: String?

    @Option(help: "The Unix socket path.")
    var socket: String?

    @Option(help: "An Xcode model file (.xcdatamodeld, .xcdatamodel or contents) instead of the compiled-in model.")
    var model: String?

    @Option(
        name: .customLong("personal-store"),
        help: "A PostgreSQL URL for the personal store, shared by every daemon given it (postgres:///db?host=…).")
    var personalStore: String?

    @Flag(help: "Attach Core Data stores dropped into the folders read-only too.")
    var readOnlyInbox = false

    @Option(
        name: .customLong("event-loops"),
        help: "How many event-loop threads serve the socket (default: one per core; \"eventLoops\" in almanacd.json).")
    var eventLoops: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    mutating func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StderrLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "almanacd")
        var configuration = DaemonConfiguration.defaults()
        if !watch.isEmpty { configuration.watchFolders = watch.map { URL(fileURLWithPath: $0).standardizedFileURL } }
        if let state { configuration.stateFolder = URL(fileURLWithPath: state).standardizedFileURL }
        if let socket { configuration.socketPath = socket }
        if let model { configuration.modelURL = URL(fileURLWithPath: model) }
        if let eventLoops { _ = try DaemonConfiguration.checkedEventLoopCount(eventLoops, setting: "--event-loops") }
        var personalStoreURL: URL?
        if let personalStore {
            guard let url = URL(string: personalStore), url.scheme?.hasPrefix("postgres") == true else {
                throw ValidationError(
                    "--personal-store must be a PostgreSQL URL such as postgres:///db?host=/run/postgresql&schema=name")
            }
            personalStoreURL = url
        }
        do {
            try configuration.loadConfigurationFile()
            if readOnlyInbox { configuration.readOnlyInbox = true }
            if let personalStoreURL { configuration.personalStoreURL = personalStoreURL }
            if let eventLoops { configuration.eventLoopCount = eventLoops }
            try await Daemon.run(configuration: configuration, logger: logger)
        } catch {
            logger.critical("cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}
