/// The lifecycle of one connection, as a value type: the connection's task and its idle and shutdown watchers
/// report events, and do what the returned action says. Unit-tested without sockets.
///
/// A connection is `idle` (waiting for a request line), `processing` one request, `draining` (shutdown arrived
/// during a request: answer it, then close) or `closed`. Idle time counts from the last byte received or the last
/// answer written; connections that subscribed are never closed for idleness.
struct ConnectionStateMachine {
    typealias Instant = ContinuousClock.Instant

    enum State: Equatable {
        case idle(since: Instant)
        case processing
        case draining
        case closed
    }

    enum RequestAction: Equatable {
        case process
        case ignore
    }

    enum AnswerAction: Equatable {
        case continueReading
        case close
    }

    enum ShutdownAction: Equatable {
        case closeNow
        case closeAfterCurrentRequest
        case none
    }

    enum IdleAction: Equatable {
        case close
        case checkAgain(at: Instant)
        case stopWatching
    }

    private(set) var state: State
    private(set) var isSubscribed = false

    init(now: Instant) {
        state = .idle(since: now)
    }

    /// Bytes arrived: idle time starts again.
    mutating func bytesReceived(at now: Instant) {
        if case .idle = state { state = .idle(since: now) }
    }

    /// A complete request line was read.
    mutating func requestStarted() -> RequestAction {
        switch state {
        case .idle:
            state = .processing
            return .process
        case .processing:
            preconditionFailure("requests on one connection are processed one at a time")
        case .draining, .closed:
            return .ignore
        }
    }

    /// A request the event loop answers at once (``RequestDecoder``) starts, if the connection is idle.
    mutating func immediateRequestStarted() -> Bool {
        guard case .idle = state else { return false }
        state = .processing
        return true
    }

    /// The answer to the current request was written (or, for an immediate request, handed to the socket).
    mutating func requestFinished(at now: Instant) -> AnswerAction {
        switch state {
        case .processing:
            state = .idle(since: now)
            return .continueReading
        case .draining:
            state = .closed
            return .close
        case .idle, .closed:
            return state == .closed ? .close : .continueReading
        }
    }

    /// The connection sent `subscribe`.
    mutating func subscribed() {
        isSubscribed = true
    }

    /// The server is shutting down gracefully.
    mutating func gracefulShutdown() -> ShutdownAction {
        switch state {
        case .idle:
            state = .closed
            return .closeNow
        case .processing:
            state = .draining
            return .closeAfterCurrentRequest
        case .draining, .closed:
            return .none
        }
    }

    /// The idle watcher woke up.
    mutating func idleCheck(at now: Instant, timeout: Duration) -> IdleAction {
        switch state {
        case .idle(let since):
            if isSubscribed { return .stopWatching }
            if now - since >= timeout {
                state = .closed
                return .close
            }
            return .checkAgain(at: since + timeout)
        case .processing, .draining:
            return .checkAgain(at: now + timeout)
        case .closed:
            return .stopWatching
        }
    }

    /// The connection was closed (by either side).
    mutating func closed() {
        state = .closed
    }
}
