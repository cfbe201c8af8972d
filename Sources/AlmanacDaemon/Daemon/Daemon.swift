import AlmanacWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import ObjectGraph
import ServiceLifecycle

/// The daemon: the core set up, the socket server, the folder watcher, SIGHUP reloads and systemd's protocols, run
/// as one service group that shuts down gracefully on SIGTERM and SIGINT.
public enum Daemon {
    /// Runs until SIGTERM or SIGINT.
    ///
    /// - Throws: a ``ConfigurationError`` or a server error when the daemon cannot start (another instance is
    ///   running, the socket path is unusable, the state folder cannot be created).
    public static func run(configuration: DaemonConfiguration, logger: Logger) async throws {
        // Checked before anything starts: NIO stops the process on a group of no threads.
        let loopCount = try configuration.eventLoopCount.map {
            try DaemonConfiguration.checkedEventLoopCount($0, setting: "eventLoopCount")
        }
        // Each connection is a descriptor: take every one the system allows, and serve no more than fit.
        let (files, failure) = OpenFileLimit.raiseToHard()
        if let failure {
            logger.warning("cannot raise the open-file limit to \(files.hard): \(failure); it stays \(files.soft)")
        } else {
            logger.info("open-file limit: \(files.soft)")
        }
        let limits = configuration.connectionLimits.fitted(toOpenFileLimit: files.soft)
        if limits != configuration.connectionLimits {
            logger.warning(
                "serving at most \(limits.maxConnections) connections (\(limits.maxConnectionsPerUser) per user) to fit the open-file limit of \(files.soft)"
            )
        }
        let notifier = SystemdNotifier()
        let core = try DaemonCore(configuration: configuration)
        let events = EventHub()
        // Watching starts before the scan: a file dropped from now on is reported even if the scan missed it.
        #if canImport(Glibc)
        let watcher = WatcherService(core: core, events: events, logger: logger,
                                     watcher: try DirectoryWatcher(folders: configuration.watchFolders))
        #else
        let watcher = WatcherService(core: core, events: events, logger: logger)
        #endif
        for folder in configuration.watchFolders {
            if !FileManager.default.fileExists(atPath: folder.path) {
                logger.warning("the watched folder \(folder.path) does not exist yet; waiting for it")
            }
        }
        for (url, outcome) in try await core.storeThreads.run({ core.scanAll() }) { watcher.report(url, outcome) }
        do {
            let moved = try await core.storeThreads.run { try core.migrateConferenceNames() }
            if moved > 0 { logger.notice("moved \(moved) favourites, reminders and notes to today's conference names") }
        } catch {
            logger.error("could not move favourites to today's conference names (will try at the next start): \(error)")
        }
        events.publishSaves(of: core.library.coordinator)
        // Other daemons' writes to a shared (PostgreSQL) personal store, as its listening connection hears of them.
        let relay = events.publishRemoteChanges(
            of: core.personalStore, coordinator: core.library.coordinator, storeThreads: core.storeThreads,
            skipping: core.engine.writerName)
        defer { relay?.cancel() }
        let socketFolder = URL(fileURLWithPath: configuration.socketPath).deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: socketFolder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o750])
        var serverConfiguration = ServerConfiguration(listener: .fromSocketActivation(
            environment: ProcessInfo.processInfo.environment, orPath: configuration.socketPath))
        serverConfiguration.writeAccess.writerGroup = configuration.writerGroupID
        serverConfiguration.connectionLimits = limits
        let handler = DaemonHandler(engine: core.engine, events: events, storeThreads: core.storeThreads)
        // A group of the configured size, shut down when the daemon stops; else NIO's shared one (a thread per core).
        let ownLoops = loopCount.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) }
        defer { ownLoops?.shutdownGracefully { _ in } }
        let loops: any EventLoopGroup = ownLoops ?? MultiThreadedEventLoopGroup.singleton
        let server = WireServer(
            configuration: serverConfiguration, handler: handler, logger: logger, eventLoopGroup: loops
        ) { info in
            let status = core.statusLine
            logger.info("\(status), listening on \(info.socketPath ?? "an inherited socket")")
            notifier.ready(status: status)
        }
        let group = ServiceGroup(
            services: [server, watcher, ReloadService(watcher: watcher, notifier: notifier),
                       SystemdService(notifier: notifier, events: events)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        logger.info("stopped")
    }
}
