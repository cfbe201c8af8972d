/// The lifecycle of one connection, as a value type: the connection's task and its idle and shutdown watchers
/// report events, and do what the returned action says. Unit-tested without sockets.
///
/// A connection is `idle` (waiting for a request line), `processing` one request, `draining` (shutdown arrived
/// during a request: answer it, then close) or `closed`. Idle time counts from the last byte received or the last
/// answer written; connections that subscribed are never closed for idleness.
///
/// Apart from idleness, a request line must arrive in full within a short time of its first byte: the event loop
/// reports an unfinished line (``partialLineStarted(at:)``, ``partialLineEnded()``) and its timer asks
/// ``requestLineCheck(at:timeout:)``. The clock restarts when an answer is written, so the time a client's earlier
/// requests take is not counted against the line it sends meanwhile.
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

    enum RequestLineAction: Equatable {
        /// The line is late: answer `timeout` and close.
        case close
        case checkAgain(at: Instant)
        /// No line is unfinished, or the connection is closed.
        case stopWatching
    }

    private(set) var state: State
    private(set) var isSubscribed = false
    /// When the unfinished request line started (its clock restarted), or nil when none is unfinished.
    private(set) var partialLineSince: Instant?

    init(now: Instant) {
        state = .idle(since: now)
    }

    /// Bytes arrived: idle time starts again.
    mutating func bytesReceived(at now: Instant) {
        if case .idle = state { state = .idle(since: now) }
    }

    /// A read left a request line unfinished that was not unfinished before (its first bytes arrived).
    mutating func partialLineStarted(at now: Instant) {
        partialLineSince = now
    }

    /// No request line is unfinished any more.
    mutating func partialLineEnded() {
        partialLineSince = nil
    }

    /// The request-line timer woke up.
    mutating func requestLineCheck(at now: Instant, timeout: Duration) -> RequestLineAction {
        guard let since = partialLineSince else { return .stopWatching }
        switch state {
        case .idle:
            guard now - since >= timeout else { return .checkAgain(at: since + timeout) }
            state = .closed
            return .close
        case .processing, .draining:
            // ``requestFinished(at:)`` restarts the clock.
            return .checkAgain(at: now + timeout)
        case .closed:
            return .stopWatching
        }
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
        if partialLineSince != nil { partialLineSince = now }
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
