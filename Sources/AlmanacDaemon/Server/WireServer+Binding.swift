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
        var channel: NIOAsyncChannel<AcceptedConnection, Never>
        var socketPath: String?
        var inode: ino_t?
    }

    /// Binds the configured listener: checks for a running instance, removes a stale socket file, binds, sets the
    /// file's mode; or adopts the inherited descriptor.
    func bind() async throws(ServerError) -> BoundChannel {
        let bootstrap = ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let handler = self.handler
        let maxLineLength = configuration.maxLineLength
        let initializer: @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let state = ConnectionState(now: .now)
                try channel.pipeline.syncOperations.addHandler(
                    RequestDecoder(handler: handler, state: state, maxLineLength: maxLineLength)
                )
                let wrapped = try NIOAsyncChannel<InboundRequest, ByteBuffer>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init()
                )
                return AcceptedConnection(channel: wrapped, state: state)
            }
        }

        switch configuration.listener {
        case .descriptor(let fd):
            try SocketFile.validateInherited(fd)
            do {
                let channel = try await bootstrap.bind(fd, childChannelInitializer: initializer)
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
            let channel: NIOAsyncChannel<AcceptedConnection, Never>
            do {
                channel = try await bootstrap.bind(
                    unixDomainSocketPath: path,
                    cleanupExistingSocketFile: false,
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
