import AlmanacWire
import Logging
import NIOCore
import ObjectGraph
import ObjectGraphPostgres
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WireServer {
    /// Serves one connection until the client closes it, it idles out, or the server shuts down.
    ///
    /// The connection's task runs on the connection's event loop (a task executor preference): a request read, its
    /// answer encoded and written, with no thread of the cooperative pool woken in between and none to wake the
    /// event loop again for the write. Only store work leaves the loop, for the store threads, and comes back when it
    /// is done. Through the pool, each request the event loop could not answer itself woke threads three or four
    /// times: on a two-core VM, a reply-cache miss spent 65 µs of system CPU, 27 µs since.
    func serve(_ accepted: AcceptedConnection) async {
        let connection = accepted.channel
        accepted.serve()
        let channel = connection.channel
        let executor = EventLoopTaskExecutor(channel.eventLoop)
        await withTaskExecutorPreference(executor) {
            await serve(connection, state: accepted.state, executor: executor)
        }
    }

    private func serve(
        _ connection: NIOAsyncChannel<InboundRequest, ByteBuffer>, state: ConnectionState,
        executor: EventLoopTaskExecutor
    ) async {
        let channel = connection.channel
        let peer = state.peer
        var logger = self.logger
        logger[metadataKey: "peer"] = "\(peer)"
        logger.debug("connection opened")

        await withTaskCancellationHandler {
            do {
                try await connection.executeThenClose { inbound, _ in
                    try await withGracefulShutdownHandler {
                        try await withThrowingDiscardingTaskGroup { group in
                            if let idleTimeout = configuration.connectionLimits.idleTimeout {
                                group.addTask { await self.watchIdle(state, channel: channel, timeout: idleTimeout) }
                            }
                            var session = ConnectionSession(
                                peer: peer, state: state, channel: channel, executor: executor, logger: logger)
                            reading: do {
                                // Lines arrive framed and decoded by the event loop's ``RequestDecoder``.
                                for try await request in inbound {
                                    guard await self.perform(request, in: &session, group: &group) else {
                                        break reading
                                    }
                                    state.requestsAnswered.add(1, ordering: .releasing)
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

    /// Answers one decoded request line; returns false when the connection should stop reading.
    private func perform(
        _ inbound: InboundRequest,
        in session: inout ConnectionSession,
        group: inout ThrowingDiscardingTaskGroup<any Error>
    ) async -> Bool {
        let started = ContinuousClock.now
        let request: WireRequest
        switch inbound {
        case .tooLarge:
            let error = WireError.tooLarge(limit: configuration.maxLineLength)
            let written = await session.write { WireResponse.encodeLine(id: .null, error: error, into: &$0) }
            record(op: nil, error: error, since: started, peer: session.peer)
            return written
        case .unreadable(let id, let error):
            guard session.state.withLock({ $0.requestStarted() }) == .process else { return false }
            let written = await session.write { WireResponse.encodeLine(id: id, error: error, into: &$0) }
            record(op: nil, error: error, since: started, peer: session.peer)
            return finished(session, written: written)
        case .request(let decoded):
            guard session.state.withLock({ $0.requestStarted() }) == .process else { return false }
            request = decoded
        }

        let answer = await answer(request, peer: session.peer, executor: session.executor)
        // The one place `subscribe` is special: the subscription starts before its answer is written, so the client
        // misses no event published once it has read `subscribed`.
        var subscription: AsyncStream<WireEvent>?
        if request.operation == .subscribe, answer.error == nil, !session.isSubscribed {
            session.isSubscribed = true
            session.state.withLock { $0.subscribed() }
            subscription = await handler.subscribe(request, peer: session.peer)
        }
        let written: Bool
        switch answer {
        case .success(let reply):
            written = await session.write(capacity: reply.encodedByteCountEstimate) {
                WireResponse.encodeLine(id: request.id, body: reply, into: &$0)
            }
        case .failure(let error):
            written = await session.write { WireResponse.encodeLine(id: request.id, error: error, into: &$0) }
            if error.code == .internal || error.code == .ioError || error.code == .storageFull {
                session.logger.error(
                    "request failed",
                    metadata: ["op": "\(request.op)", "error": "\(error.cause.map { "\($0)" } ?? error.message)"]
                )
            }
        }
        record(op: request.op, error: answer.error, since: started, peer: session.peer)
        if let subscription, written {
            let channel = session.channel
            let logger = session.logger
            group.addTask {
                for await event in subscription {
                    var line = channel.allocator.buffer(capacity: 256)
                    event.encodeLine(into: &line)
                    do {
                        try await channel.writeAndFlush(line)
                    } catch {
                        logger.debug("event not delivered", metadata: ["error": "\(error)"])
                        return
                    }
                }
            }
        }
        return finished(session, written: written)
    }

    /// Whether to read on after an answer.
    private func finished(_ session: ConnectionSession, written: Bool) -> Bool {
        let next = session.state.withLock { $0.requestFinished(at: .now) }
        return written && next == .continueReading
    }

    private func record(op: String?, error: WireError?, since started: ContinuousClock.Instant, peer: PeerCredentials) {
        handler.requestCompleted(RequestRecord(op: op, errorCode: error?.code, duration: .now - started, peer: peer))
    }

    /// The answer to a well-formed request: the handler's, within the request deadline, if the peer may ask.
    private func answer(_ request: WireRequest, peer: PeerCredentials, executor: EventLoopTaskExecutor) async
        -> Answer
    {
        if request.operation?.isWrite == true, !configuration.writeAccess.allowsWrites(by: peer) {
            let error = WireError(
                code: .forbidden,
                message: "\(request.op) needs the daemon's user, root or the writers' group; \(peer) is none"
            )
            return .failure(error)
        }
        let handler = self.handler
        let timeout = configuration.requestTimeout
        do {
            let reply = try await withDeadline(timeout, executor: executor) {
                try await handler.handle(request, peer: peer)
            }
            return .success(reply)
        } catch let error as WireError {
            return .failure(error)
        } catch is DeadlineExceeded {
            let error = WireError(
                code: .timeout,
                message: "\(request.op) took longer than \(timeout); narrow the request"
            )
            return .failure(error)
        } catch is CancellationError {
            return .failure(WireError(code: .internal, message: "the daemon is stopping; try again"))
        } catch {
            let cause = SendableDescription(error)
            return .failure(WireError(code: .internal, message: "internal error; see the daemon's log", cause: cause))
        }
    }

    /// A handler's answer to one request.
    enum Answer {
        case success(Handler.Reply)
        case failure(WireError)

        var error: WireError? {
            if case .failure(let error) = self { return error }
            return nil
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

    /// The peer's credentials via `SO_PEERCRED` (Linux), read through NIO's `SocketOptionProvider`; `unknown` when
    /// they cannot be read. Completes at once on the channel's event loop.
    static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(.unknown)
        }
        let option: EventLoopFuture<PeerCredentialsOption> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET),
            name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        )
        return option.map { PeerCredentials(uid: $0.uid, gid: $0.gid, pid: $0.pid) }.recover { _ in .unknown }
        #else
        return channel.eventLoop.makeSucceededFuture(.unknown)
        #endif
    }
}

/// The per-connection state shared between the connection's task and its watchers.
final class ConnectionState: Sendable {
    private let machine: LockedValue<ConnectionStateMachine>
    /// Who is on the other end, read when the connection was accepted.
    let peer: PeerCredentials
    /// Requests the connection's task has answered (the answer handed to the socket), for ``RequestDecoder``'s
    /// ordering.
    let requestsAnswered = Atomic(0)

    init(now: ContinuousClock.Instant, peer: PeerCredentials) {
        machine = LockedValue(ConnectionStateMachine(now: now))
        self.peer = peer
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
///
/// NIO drops a connection accepted while the server closes (its initializer ran, the accept loop had ended); a
/// wrapped channel must still be closed through `executeThenClose`, so one never served is closed on deinit.
final class AcceptedConnection: Sendable {
    let channel: NIOAsyncChannel<InboundRequest, ByteBuffer>
    let state: ConnectionState
    private let isServed = Atomic(false)

    init(channel: NIOAsyncChannel<InboundRequest, ByteBuffer>, state: ConnectionState) {
        self.channel = channel
        self.state = state
    }

    /// The connection's task takes it over.
    func serve() {
        isServed.store(true, ordering: .releasing)
    }

    deinit {
        guard !isServed.load(ordering: .acquiring) else { return }
        let channel = self.channel
        // The one unstructured task: nothing awaits a connection nobody took, and closing it needs an async scope.
        Task { try? await channel.executeThenClose { _, _ in } }
    }
}

/// What the reading loop of one connection carries along.
struct ConnectionSession {
    let peer: PeerCredentials
    let state: ConnectionState
    let channel: any Channel
    /// The connection's event loop as its task's executor.
    let executor: EventLoopTaskExecutor
    let logger: Logger
    var isSubscribed = false

    /// Writes one line, encoded by `encode` straight into the outgoing buffer, and waits until it is handed to the
    /// socket; false when the connection is gone.
    func write(capacity: Int = 256, _ encode: (inout ByteBuffer) -> Void) async -> Bool {
        var line = channel.allocator.buffer(capacity: capacity)
        encode(&line)
        do {
            try await channel.writeAndFlush(line)
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
