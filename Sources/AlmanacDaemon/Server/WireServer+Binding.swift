import AlmanacWire
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WireServer {
    struct BoundChannel {
        var channel: NIOAsyncChannel<AcceptedConnection?, Never>
        var socketPath: String?
        var inode: ino_t?
    }

    /// Accepted connections may wait this many at most for the accept loop's task; past it the event loop stops
    /// accepting for the moment. Connections past a limit never wait: their event loop answers them.
    static var acceptBuffer: NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark {
        .init(lowWatermark: 256, highWatermark: 1024)
    }

    /// Binds the configured listener: checks for a running instance, removes a stale socket file, binds, sets the
    /// file's mode; or adopts the inherited descriptor.
    func bind() async throws(ServerError) -> BoundChannel {
        let bootstrap = ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: configuration.listenBacklog)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let handler = self.handler
        let admission = self.admission
        let logger = self.logger
        let maxLineLength = configuration.maxLineLength
        let lineTimeout = configuration.connectionLimits.requestLineTimeout
        // Runs on the connection's event loop, before it is registered: reads the peer's uid, takes a slot for it or
        // answers `busy` (nil for the accept loop), and sets the pipeline up.
        let initializer: @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection?> = { channel in
            Self.peerCredentials(of: channel).flatMapThrowing { peer -> AcceptedConnection? in
                switch admission.admit(uid: peer.uid) {
                case .refuse(let error, let isFirst):
                    logger.log(
                        level: isFirst ? .notice : .debug, "connection limit reached; answering busy",
                        metadata: ["peer": "\(peer)", "limit": "\(error.details["limit"] ?? .null)"])
                    try channel.pipeline.syncOperations.addHandler(RefusalHandler(error: error))
                    return nil
                case .admit:
                    channel.closeFuture.whenComplete { _ in admission.release(uid: peer.uid) }
                    let state = ConnectionState(now: .now, peer: peer)
                    try channel.pipeline.syncOperations.addHandler(
                        RequestDecoder(
                            handler: handler, state: state, maxLineLength: maxLineLength, lineTimeout: lineTimeout)
                    )
                    let wrapped = try NIOAsyncChannel<InboundRequest, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init()
                    )
                    return AcceptedConnection(channel: wrapped, state: state)
                }
            }.flatMapErrorThrowing { error in
                // NIO neither registers nor closes a connection whose initializer failed.
                channel.close(promise: nil)
                throw error
            }
        }

        switch configuration.listener {
        case .descriptor(let fd):
            try SocketFile.validateInherited(fd)
            do {
                let channel = try await bootstrap.bind(
                    fd, serverBackPressureStrategy: Self.acceptBuffer, childChannelInitializer: initializer)
                return BoundChannel(channel: channel, socketPath: nil, inode: nil)
            } catch {
                throw ServerError(
                    code: .socketActivationFailed,
                    message: "cannot adopt descriptor \(fd)",
                    cause: error
                )
            }

        case .path(let path):
            guard !path.isEmpty, path.utf8.count <= SocketFile.maxPathLength else {
                throw ServerError(
                    code: .invalidSocketPath,
                    message: "socket path must be 1 to \(SocketFile.maxPathLength) bytes long; choose a shorter one",
                    path: path
                )
            }
            try SocketFile.ensureDirectory(of: path, mode: configuration.directoryMode)
            switch SocketFile.probe(path) {
            case .live:
                throw ServerError(
                    code: .alreadyRunning,
                    message: "another almanacd already answers on \(path); stop it or use another socket path",
                    path: path
                )
            case .notASocket:
                throw ServerError(
                    code: .notASocket,
                    message: "\(path) exists and is not a socket; remove it or use another socket path",
                    path: path
                )
            case .stale:
                logger.notice("removing stale socket file", metadata: ["socket": "\(path)"])
                unlink(path)
            case .absent:
                break
            }
            let channel: NIOAsyncChannel<AcceptedConnection?, Never>
            do {
                channel = try await bootstrap.bind(
                    unixDomainSocketPath: path,
                    cleanupExistingSocketFile: false,
                    serverBackPressureStrategy: Self.acceptBuffer,
                    childChannelInitializer: initializer
                )
            } catch {
                throw ServerError(code: .bindFailed, message: "cannot listen on \(path)", path: path, cause: error)
            }
            if chmod(path, configuration.socketMode) != 0 {
                let reason = String(cString: strerror(errno))
                try? await channel.channel.close().get()
                throw ServerError(code: .bindFailed, message: "cannot set the mode of \(path): \(reason)", path: path)
            }
            return BoundChannel(channel: channel, socketPath: path, inode: SocketFile.inode(path))
        }
    }
}
