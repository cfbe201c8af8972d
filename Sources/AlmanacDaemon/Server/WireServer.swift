import AlmanacWire
import Logging
import NIOCore
import NIOPosix
import ObjectGraph
import ServiceLifecycle

/// The Unix-socket server of the Almanac wire protocol, generic over the ``RequestHandler`` that answers requests.
///
/// Run it in a `ServiceGroup`:
///
/// ```swift
/// let server = WireServer(
///     configuration: ServerConfiguration(
///         listener: .fromSocketActivation(environment: ProcessInfo.processInfo.environment, orPath: socketPath)
///     ),
///     handler: daemonHandler,
///     logger: logger,
///     onReady: { address in notifySystemd("READY=1") }
/// )
/// let group = ServiceGroup(services: [watcher, server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// `run()` binds (or adopts the socket-activated descriptor), calls `onReady`, serves until graceful shutdown, then
/// stops accepting, lets in-flight requests finish within ``ServerConfiguration/shutdownGracePeriod``, closes every
/// connection, removes the socket file it created and returns without throwing. It throws ``ServerError`` only
/// when it cannot start.
public struct WireServer<Handler: RequestHandler>: Service {
    /// What the server tells `onReady` once it accepts connections.
    public struct ReadyInfo: Sendable, Hashable {
        /// The socket path, or nil for an adopted descriptor.
        public var socketPath: String?
    }

    public let configuration: ServerConfiguration
    public let handler: Handler
    let logger: Logger
    let eventLoopGroup: any EventLoopGroup
    let onReady: @Sendable (ReadyInfo) async -> Void
    /// Counts connections against ``ServerConfiguration/connectionLimits``.
    let admission: ConnectionAdmission

    /// A server for `handler`.
    ///
    /// - Parameters:
    ///   - configuration: The socket, limits and write access.
    ///   - handler: Answers each request.
    ///   - logger: Where connection problems are logged.
    ///   - eventLoopGroup: The NIO event loops (default: NIO's shared singleton).
    ///   - onReady: Called once the socket accepts connections (report `READY=1` to systemd here).
    public init(
        configuration: ServerConfiguration,
        handler: Handler,
        logger: Logger = Logger(label: "almanac.server"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onReady: @escaping @Sendable (ReadyInfo) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.onReady = onReady
        self.admission = ConnectionAdmission(
            limits: configuration.connectionLimits, owner: configuration.writeAccess.ownerUID)
    }

    public func run() async throws {
        let bound = try await bind()
        let serverChannel = bound.channel
        defer {
            if case .path(let path) = configuration.listener { SocketFile.remove(path, ifInode: bound.inode) }
        }
        logger.info("listening", metadata: ["socket": "\(bound.socketPath ?? "inherited descriptor")"])
        await onReady(ReadyInfo(socketPath: bound.socketPath))

        let (shutdownSignal, shutdownContinuation) = AsyncStream<Void>.makeStream()
        let grace = configuration.shutdownGracePeriod
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await self.acceptConnections(on: serverChannel)
                    }
                    group.addTask {
                        for await _ in shutdownSignal { break }
                        try await Task.sleep(for: grace)
                        throw GracePeriodExpired()
                    }
                    do {
                        _ = try await group.next()
                    } catch is GracePeriodExpired {
                        self.logger.warning("shutdown grace period expired; cancelling requests still running")
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                shutdownContinuation.yield()
                serverChannel.channel.close(promise: nil)
            }
        } catch is CancellationError {
            // Cancelled by the service group: stop as on graceful shutdown.
        }
        serverChannel.channel.close(promise: nil)
        shutdownContinuation.finish()
        logger.info("stopped")
    }

    private func acceptConnections(on serverChannel: NIOAsyncChannel<AcceptedConnection?, Never>)
        async
    {
        await withTaskCancellationHandler {
            do {
                try await serverChannel.executeThenClose { inbound in
                    await withDiscardingTaskGroup { connections in
                        do {
                            // Connections past a limit were answered `busy` on their event loop (nil here).
                            for try await case let connection? in inbound {
                                connections.addTask { await self.serve(connection) }
                            }
                        } catch {
                            self.logger.debug("accept loop ended", metadata: ["error": "\(error)"])
                        }
                    }
                }
            } catch {
                logger.debug("server channel closed with an error", metadata: ["error": "\(error)"])
            }
        } onCancel: {
            serverChannel.channel.close(promise: nil)
        }
    }
}

struct GracePeriodExpired: Error {}
