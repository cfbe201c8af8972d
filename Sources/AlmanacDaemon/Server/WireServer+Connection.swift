import AlmanacWire
import Logging
import NIOCore
import ObjectGraph
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WireServer {
    /// Serves one connection until the client closes it, it idles out, or the server shuts down.
    func serve(_ accepted: AcceptedConnection) async {
        let connection = accepted.channel
        let channel = connection.channel
        let peer = await Self.peerCredentials(of: channel)
        let state = accepted.state
        state.peer = peer
        var logger = self.logger
        logger[metadataKey: "peer"] = "\(peer)"
        logger.debug("connection opened")

        await withTaskCancellationHandler {
            do {
                try await connection.executeThenClose { inbound, _ in
                    try await withGracefulShutdownHandler {
                        try await withThrowingDiscardingTaskGroup { group in
                            if let idleTimeout = configuration.idleTimeout {
                                group.addTask { await self.watchIdle(state, channel: channel, timeout: idleTimeout) }
                            }
                            var session = ConnectionSession(peer: peer, state: state, channel: channel, logger: logger)
                            var framer = LineFramer(maxLineLength: configuration.maxLineLength)
                            reading: do {
                                for try await chunk in inbound {
                                    for action in framer.append(chunk.readableBytesView) {
                                        guard await self.perform(action, in: &session, group: &group) else {
                                            break reading
                                        }
                                    }
                                    state.chunksAnswered.add(1, ordering: .releasing)
                                }
                                for action in framer.finish() {
                                    guard await self.perform(action, in: &session, group: &group) else { break reading }
                                }
                            } catch {
                                logger.debug("read ended", metadata: ["error": "\(error)"])
                            }
                            state.withLock { $0.closed() }
                            group.cancelAll()
                        }
                    } onGracefulShutdown: {
                        if state.withLock({ $0.gracefulShutdown() }) == .closeNow {
                            channel.close(promise: nil)
                        }
                    }
                }
            } catch {
                logger.debug("connection ended with an error", metadata: ["error": "\(error)"])
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        logger.debug("connection closed")
    }

    /// Handles one framer action; returns false when the connection should stop reading.
    private func perform(
        _ action: LineFramer.Action,
        in session: inout ConnectionSession,
        group: inout ThrowingDiscardingTaskGroup<any Error>
    ) async -> Bool {
        let started = ContinuousClock.now
        switch action {
        case .tooLarge:
            let error = WireError.tooLarge(limit: configuration.maxLineLength)
            let written = await session.write(WireResponse.failure(id: .null, error: error).encodedLine())
            handler.requestCompleted(
                RequestRecord(op: nil, errorCode: error.code, duration: .now - started, peer: session.peer)
            )
            return written
        case .line(let line):
            guard session.state.withLock({ $0.requestStarted() }) == .process else { return false }
            let (op, response, subscription) = await answer(line, session: &session)
            let written = await session.write(response.encodedLine())
            if case .failure(_, let error) = response, error.code == .internal {
                session.logger.error("request failed", metadata: ["op": "\(op ?? "?")", "error": "\(error.cause.map { "\($0)" } ?? error.message)"])
            }
            var errorCode: WireError.Code?
            if case .failure(_, let error) = response { errorCode = error.code }
            handler.requestCompleted(
                RequestRecord(op: op, errorCode: errorCode, duration: .now - started, peer: session.peer)
            )
            if let subscription, written {
                let channel = session.channel
                let logger = session.logger
                group.addTask {
                    for await event in subscription {
                        do {
                            try await channel.writeAndFlush(ByteBuffer(bytes: event.encodedLine()))
                        } catch {
                            logger.debug("event not delivered", metadata: ["error": "\(error)"])
                            return
                        }
                    }
                }
            }
            let next = session.state.withLock { $0.requestFinished(at: .now) }
            return written && next == .continueReading
        }
    }

    /// Reads, authorizes and answers one request line.
    private func answer(
        _ line: [UInt8],
        session: inout ConnectionSession
    ) async -> (op: String?, response: WireResponse, subscription: AsyncStream<WireEvent>?) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line)
        } catch {
            let failure = WireError(
                code: .badRequest,
                message: "request is not valid JSON: \(error.message)",
                details: error.details
            )
            return (nil, .failure(id: .null, error: failure), nil)
        }
        let id = WireRequest.id(inRequestObject: value)
        let request: WireRequest
        do throws(WireError) {
            guard let object = value.objectValue else {
                throw WireError.badRequest("request must be a JSON object, not \(value.typeName)")
            }
            request = try WireRequest(json: object)
        } catch {
            return (nil, .failure(id: id, error: error), nil)
        }

        if request.operation == .subscribe {
            var subscription: AsyncStream<WireEvent>?
            if !session.isSubscribed {
                session.isSubscribed = true
                session.state.withLock { $0.subscribed() }
                subscription = await handler.subscribe(peer: session.peer)
            }
            return (request.op, .success(id: id, body: WireResponse.Subscribed().json), subscription)
        }

        if request.operation?.isWrite == true, !configuration.writeAccess.allowsWrites(by: session.peer) {
            let error = WireError(
                code: .forbidden,
                message: "\(request.op) needs the daemon's user, root or the writers' group; \(session.peer) is none"
            )
            return (request.op, .failure(id: id, error: error), nil)
        }

        let handler = self.handler
        let peer = session.peer
        if request.operation == .ping {
            // Nothing to time out: answered without starting a deadline.
            do {
                return (request.op, .success(id: id, body: try await handler.handle(request, peer: peer)), nil)
            } catch {
                let failure = (error as? WireError) ?? WireError(code: .internal, message: "internal error; see the daemon's log")
                return (request.op, .failure(id: id, error: failure), nil)
            }
        }
        do {
            let body = try await withDeadline(configuration.requestTimeout) {
                try await handler.handle(request, peer: peer)
            }
            return (request.op, .success(id: id, body: body), nil)
        } catch let error as WireError {
            return (request.op, .failure(id: id, error: error), nil)
        } catch is DeadlineExceeded {
            let error = WireError(
                code: .timeout,
                message: "\(request.op) took longer than \(configuration.requestTimeout); narrow the request"
            )
            return (request.op, .failure(id: id, error: error), nil)
        } catch is CancellationError {
            let error = WireError(code: .internal, message: "the daemon is stopping; try again")
            return (request.op, .failure(id: id, error: error), nil)
        } catch {
            let failure = WireError(code: .internal, message: "internal error; see the daemon's log", cause: SendableDescription(error))
            return (request.op, .failure(id: id, error: failure), nil)
        }
    }

    /// Closes the connection once it has been idle for `timeout`.
    private func watchIdle(_ state: ConnectionState, channel: any Channel, timeout: Duration) async {
        while !Task.isCancelled {
            switch state.withLock({ $0.idleCheck(at: ContinuousClock.now, timeout: timeout) }) {
            case .close:
                logger.debug("closing idle connection")
                channel.close(promise: nil)
                return
            case .checkAgain(let deadline):
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                } catch {
                    return
                }
            case .stopWatching:
                return
            }
        }
    }

    /// The peer's credentials via `SO_PEERCRED` (Linux), read through NIO's `SocketOptionProvider`.
    static func peerCredentials(of channel: any Channel) async -> PeerCredentials {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return .unknown }
        do {
            let credentials: PeerCredentialsOption = try await provider.unsafeGetSocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET),
                name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
            ).get()
            return PeerCredentials(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
        } catch {
            return .unknown
        }
        #else
        return .unknown
        #endif
    }
}

/// The per-connection state shared between the connection's task and its watchers.
final class ConnectionState: Sendable {
    private let machine: LockedValue<ConnectionStateMachine>
    private let peerCredentials = LockedValue(PeerCredentials.unknown)
    /// Chunks of the byte stream the connection's task has answered completely (every request line in them
    /// answered and the answer handed to the socket), for ``ImmediateAnswerHandler``'s ordering.
    let chunksAnswered = Atomic(0)

    init(now: ContinuousClock.Instant) {
        machine = LockedValue(ConnectionStateMachine(now: now))
    }

    /// Who is on the other end, once the connection's task has asked the socket (`unknown` before).
    var peer: PeerCredentials {
        get { peerCredentials.withLock { $0 } }
        set { peerCredentials.withLock { $0 = newValue } }
    }

    func withLock<T>(_ body: (inout ConnectionStateMachine) -> T) -> T {
        machine.withLock { body(&$0) }
    }
}

/// The layout of Linux's `struct ucred` (which Glibc's module map hides behind `_GNU_SOURCE`).
struct PeerCredentialsOption: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

/// An accepted connection: its channel and the state its task shares with its event loop's handler.
struct AcceptedConnection: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let state: ConnectionState
}

/// What the reading loop of one connection carries along.
struct ConnectionSession {
    let peer: PeerCredentials
    let state: ConnectionState
    let channel: any Channel
    let logger: Logger
    var isSubscribed = false

    /// Writes one line and waits until it is handed to the socket; false when the connection is gone.
    func write(_ line: [UInt8]) async -> Bool {
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: line))
            return true
        } catch {
            logger.debug("answer not delivered", metadata: ["error": "\(error)"])
            return false
        }
    }
}

/// A non-Sendable error's description, kept as the cause of an `internal` error.
struct SendableDescription: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ error: any Error) { description = String(describing: error) }
}
