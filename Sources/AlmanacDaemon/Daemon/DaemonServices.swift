import AlmanacWire
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Turns the watcher's events into attaches, replacements and detaches, and publishes each as a subscription event.
///
/// The watcher is made (its inotify watches added) before the daemon scans the folders, so a file dropped while
/// the scan runs or before this service starts is still reported: inotify queues the event meanwhile.
struct WatcherService: Service {
    let core: DaemonCore
    let events: EventHub
    let logger: Logger
    #if canImport(Glibc)
    let watcher: DirectoryWatcher
    #endif

    func run() async throws {
        #if canImport(Glibc)
        await cancelWhenGracefulShutdown {
            for await event in watcher {
                guard (try? await apply(event)) != nil else { break }  // cancelled: the daemon is stopping
            }
        }
        watcher.stop()
        #endif
    }

    /// Attaches, replaces or detaches the event's files on the store threads (the coordinator's gate blocks its
    /// thread), and reports the outcomes. Throws `CancellationError` when the daemon is stopping.
    func apply(_ event: DirectoryEvent) async throws {
        let library = core.library
        switch event {
        case .fileReady(let url):
            report(url, try await core.storeThreads.run { library.attach(url, isWatcherEvent: true) })
        case .fileRemoved(let url):
            report(url, try await core.storeThreads.run { library.detach(url) })
        case .rescan(let folder):
            logger.info("rescanning \(folder.path)")
            for (url, outcome) in try await core.storeThreads.run({ library.rescan(folder) }) { report(url, outcome) }
        }
    }

    /// Logs what happened to a file and tells subscribers.
    func report(_ url: URL, _ outcome: ScheduleLibrary.Outcome) {
        let store = core.library.entry(for: url)?.store?.identifier
        var fields: JSONObject = ["file": .string(url.path)]
        if let store { fields["store"] = .string(store) }
        switch outcome {
        case .attached:
            logger.info("attached \(url.lastPathComponent)")
            logReading(url)
            events.publish(WireEvent(kind: .storeAttached, fields: fields))
        case .replaced:
            logger.info("replaced \(url.lastPathComponent) with its new version")
            logReading(url)
            events.publish(WireEvent(kind: .storeReplaced, fields: fields))
        case .detached:
            logger.info("detached \(url.lastPathComponent)")
            events.publish(WireEvent(kind: .storeDetached, fields: fields))
        case .failed(let reason):
            logger.error("could not attach \(url.lastPathComponent): \(reason)")
            fields["error"] = .string(reason)
            events.publish(WireEvent(kind: .storeFailed, fields: fields))
        case .ignored:
            break
        }
    }
}

extension WatcherService {
    /// Logs what the reader tolerated or repaired in a file (each dropped, merged or renamed record with its line),
    /// an assumed zone, unusable per-file settings, and a release set aside for a newer one.
    func logReading(_ url: URL) {
        let name = url.lastPathComponent
        for warning in core.library.warnings(for: url) { logger.warning("\(name): \(warning)") }
        guard let entry = core.library.entry(for: url) else { return }
        if let zone = entry.timeZone, let source = entry.timeZoneSource {
            logger.info("\(name): conference \(entry.conference ?? "?") in \(zone) (\(source.rawValue))")
        }
        if let error = entry.settingsError { logger.error("\(name): \(error); the file keeps its earlier reading") }
        if let newer = entry.shadowedBy {
            let conference = entry.conference ?? "it"
            logger.notice("\(name): \(newer.lastPathComponent) holds a newer release of \(conference); not served")
        }
    }
}

/// SIGHUP: reload the configuration file's reloadable settings and rescan every folder.
struct ReloadService: Service {
    let watcher: WatcherService
    let notifier: SystemdNotifier

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            let library = watcher.core.library
            let threads = watcher.core.storeThreads
            for await _ in signals {
                notifier.reloading()
                var configuration = watcher.core.configuration
                do {
                    try configuration.loadConfigurationFile()
                    watcher.core.engine.updateRoutingRules(configuration.routingRules)
                    watcher.logger.info("SIGHUP: routing rules and per-file settings reloaded, rescanning")
                    let settings = configuration.fileSettings
                    for (url, outcome) in try await threads.run({ library.updateFileSettings(settings) }) {
                        watcher.report(url, outcome)
                    }
                } catch is CancellationError {
                    break
                } catch {
                    watcher.logger.error("SIGHUP: keeping the previous configuration: \(error)")
                }
                for folder in watcher.core.configuration.watchFolders {
                    guard let outcomes = try? await threads.run({ library.rescan(folder) }) else { break }
                    for (url, outcome) in outcomes { watcher.report(url, outcome) }
                }
                notifier.status(watcher.core.statusLine)
                notifier.send("READY=1")
            }
        }
    }
}

/// Pings systemd's watchdog at half its interval, and says STOPPING=1 when graceful shutdown begins.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let events: EventHub

    func run() async throws {
        if let interval = notifier.watchdogInterval {
            try? await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    notifier.watchdog()
                    try await Task.sleep(for: interval / 2)
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        notifier.stopping()
        events.finishAll()
    }
}
