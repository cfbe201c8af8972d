import Foundation
import Logging
import NIOCore
import ObjectGraph
import PostgresNIO

/// The listening side of a PostgreSQL store: a connection of its own that `LISTEN`s on the store's channel and
/// turns other coordinators' `NOTIFY`s into remote-change events.
///
/// Each notification carries the saving store instance's change token and origin (see
/// `PostgresStore.notification(token:)`); the instance's own saves are skipped. A lost connection is re-opened
/// with back-off (50 ms doubling to 5 s, with jitter); once `LISTEN` is on again the change token is read, and an
/// event is raised when it moved while nobody listened, so that no commit goes unannounced (readers then fetch
/// the history after their last token). The store hands over the token of each of its own saves before it commits
/// (``willCommitOwnSave(token:)``): a save commits once and bumps the token by one, so the catch-up raises an
/// event only when some token it missed is not the instance's own.
final class PostgresListener: Sendable {
    /// Where and what to listen to.
    struct Target: Sendable {
        var location: PostgresStoreLocation
        var channel: String
        var origin: String
        var storeIdentifier: String
        var storeURL: URL?
        var tracksHistory: Bool
    }

    /// The connection's state, as `almanac stores` shows it.
    struct State: Sendable {
        var connectedSince: Date?
        var reconnectingSince: Date?
        var lastError: String?
        /// The listening connection's server process (for tests that terminate it).
        var backendPID: Int32?
        /// The last change token seen.
        var lastToken: Int64
        /// Tokens of the instance's own saves above ``lastToken`` (committed or committing).
        var ownTokens: Set<Int64> = []
        var subscribers: [UUID: AsyncStream<PersistentStoreRemoteChange>.Continuation] = [:]
    }

    /// The first wait after a lost connection; it doubles up to ``maximumDelay``.
    static let initialDelay: Duration = .milliseconds(50)
    /// The longest wait between attempts.
    static let maximumDelay: Duration = .seconds(5)

    let target: Target
    private let state: LockedValue<State>
    private let task = LockedValue<Task<Void, Never>?>(nil)
    private let logger = Logger(label: "ObjectGraphPostgres.listener", factory: { _ in SwiftLogNoOpLogHandler() })

    init(target: Target, lastToken: Int64) {
        self.target = target
        state = LockedValue(State(lastToken: lastToken))
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// Runs the listening task on the stores' event loop rather than the cooperative pool (see
    /// ``EventLoopTaskExecutor``).
    private static let executor = EventLoopTaskExecutor(PostgresEventLoop.group.next())

    /// Starts listening (once).
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached(executorPreference: Self.executor) { [weak self] in await self?.run() }
        }
    }

    /// Stops listening and ends every subscription.
    func stop() {
        task.withLock { $0?.cancel() }
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// The connection's state.
    var currentState: State { state.withLock { $0 } }

    /// A new stream of remote changes, from now on.
    func subscribe() -> AsyncStream<PersistentStoreRemoteChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PersistentStoreRemoteChange.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        state.withLock { $0.subscribers[id] = continuation }
        return stream
    }

    /// Connects, listens and reconnects until cancelled.
    private func run() async {
        var delay = Self.initialDelay
        var connectionID = 1
        while !Task.isCancelled {
            var connection: PostgresConnection?
            do {
                let made = try await PostgresConnection.connect(
                    on: PostgresEventLoop.group.next(), configuration: target.location.configuration,
                    id: connectionID, logger: logger)
                connection = made
                connectionID += 1
                let pid = try await made.query("SELECT pg_backend_pid()", logger: logger)
                    .collect().first?.decode(Int32.self)
                try await made.listen(on: target.channel) { notifications in
                    // LISTEN is on: whatever committed from now on is announced; read what committed before.
                    try await catchUp(on: made, backendPID: pid)
                    delay = Self.initialDelay
                    for try await notification in notifications { received(notification.payload) }
                }
                throw PostgresSessionError.connectionLost
            } catch {
                if let connection { try? await connection.close() }
                if Task.isCancelled { break }
                lost(error)
                try? await Task.sleep(for: Self.jittered(delay))
                delay = min(delay * 2, Self.maximumDelay)
            }
        }
    }

    /// Reads the change token once `LISTEN` is on, and raises an event when it moved since the last one seen.
    private func catchUp(on connection: PostgresConnection, backendPID: Int32?) async throws {
        let schema = quoted(target.location.schema)
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT Z_TOKEN FROM \(schema).Z_METADATA WHERE Z_VERSION = 1"), logger: logger
        ).collect()
        let token = try rows.first?.decode(Int64.self) ?? 0
        let (moved, subscribers) = state.withLock { state in
            state.connectedSince = Date()
            state.reconnectingSince = nil
            state.backendPID = backendPID
            let own = state.ownTokens.count(where: { $0 > state.lastToken && $0 <= token })
            let moved = token - state.lastToken > own
            state.passed(token)
            return (moved, Array(state.subscribers.values))
        }
        if moved { announce(token: token, to: subscribers) }
    }

    /// The instance's store is about to commit a save that set the change token to `token`.
    func willCommitOwnSave(token: Int64) {
        state.withLock { state in
            if token > state.lastToken { state.ownTokens.insert(token) }
        }
    }

    /// The `COMMIT` of the instance's save with `token` failed: the token may become another coordinator's. If a
    /// catch-up already counted it as the instance's own, an event is raised now (at worst one too many: readers
    /// then find no new history).
    func ownSaveDidNotCommit(token: Int64) {
        let (counted, subscribers, last) = state.withLock { state in
            let pending = state.ownTokens.remove(token) != nil
            return (!pending && token <= state.lastToken, Array(state.subscribers.values), state.lastToken)
        }
        if counted { announce(token: last, to: subscribers) }
    }

    /// A notification: another instance's save raises an event; this instance's own only moves the token.
    private func received(_ payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard let token = parts.first.flatMap({ Int64($0) }) else { return }
        let isOwn = parts.count == 2 && parts[1] == target.origin
        let subscribers = state.withLock { state in
            state.passed(token)
            return isOwn ? [] : Array(state.subscribers.values)
        }
        announce(token: token, to: subscribers)
    }

    private func announce(token: Int64, to subscribers: [AsyncStream<PersistentStoreRemoteChange>.Continuation]) {
        guard !subscribers.isEmpty else { return }
        let change = PersistentStoreRemoteChange(
            storeIdentifier: target.storeIdentifier, storeURL: target.storeURL,
            historyToken: target.tracksHistory
                ? PersistentHistoryToken(transactionNumbers: [target.storeIdentifier: token]) : nil)
        for subscriber in subscribers { subscriber.yield(change) }
    }

    /// The connection failed or could not be made.
    private func lost(_ error: any Error) {
        let message = Self.describe(error)
        state.withLock { state in
            if state.reconnectingSince == nil { state.reconnectingSince = Date() }
            state.connectedSince = nil
            state.backendPID = nil
            state.lastError = message
        }
    }

    /// A short description of a connection failure.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        if error is PostgresSessionError { return "the connection closed" }
        return "\(error)"
    }

    /// `delay` with up to a quarter more or less, so that many listeners do not reconnect in step.
    static func jittered(_ delay: Duration) -> Duration {
        delay * Double.random(in: 0.75...1.25)
    }
}

extension PostgresListener.State {
    /// Moves ``lastToken`` up to `token` and forgets the own tokens at or below it.
    mutating func passed(_ token: Int64) {
        guard token > lastToken else { return }
        lastToken = token
        ownTokens = ownTokens.filter { $0 > token }
    }
}
