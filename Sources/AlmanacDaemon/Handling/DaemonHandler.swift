import AlmanacWire
import Foundation
import ObjectGraph

/// The daemon's ``RequestHandler``: the query engine, subscriptions and statistics.
///
/// Requests run on the ``StoreThreadPool``'s threads, never on a thread of Swift's cooperative pool: the coordinator
/// blocks while it waits in its gate or a store reads.
public struct DaemonHandler: RequestHandler {
    /// The engine that executes requests.
    public let engine: QueryEngine
    /// Subscription events.
    public let events: EventHub
    /// Request statistics.
    public let statistics: RequestStatistics
    /// The threads requests run on.
    public let storeThreads: StoreThreadPool

    /// Creates a handler; `storeThreads` defaults to a pool of its own.
    public init(
        engine: QueryEngine,
        events: EventHub,
        statistics: RequestStatistics = RequestStatistics(),
        storeThreads: StoreThreadPool = StoreThreadPool()
    ) {
        self.engine = engine
        self.events = events
        self.statistics = statistics
        self.storeThreads = storeThreads
    }

    public func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> DaemonReply {
        let handler = self
        var author: String?
        if request.operation?.isWrite == true {
            author = QueryEngine.historyAuthor(peer: peer, requestID: request.id)
        }
        let recorded = author
        return try await storeThreads.run { try handler.reply(to: request, author: recorded) }
    }

    /// The answer to a request: the one place where every operation is dispatched to the code that answers it.
    ///
    /// Synchronous and blocking (the coordinator waits in its gate): ``handle(_:peer:)`` runs it on the store threads;
    /// tests call it directly.
    ///
    /// - Parameters:
    ///   - request: the decoded request.
    ///   - author: who asks, recorded with writes in the persistent history (see
    ///     ``QueryEngine/historyAuthor(peer:requestID:)``).
    /// - Throws: a `WireError` with the protocol's error code (`unknown_op`, `bad_request` for a
    ///   body that does not decode, and each operation's own).
    public func reply(to request: WireRequest, author: String? = nil) throws(WireError) -> DaemonReply {
        switch try WireCommand(request) {
        case .hello: return .hello(engine.hello())
        case .ping: return .empty
        case .model: return .model(engine.model())
        case .stores: return .stores(try engine.stores())
        case .fetch(let fetch): return .fetch(try engine.fetch(fetch, key: ReplyCache.Key(request)))
        case .count(let fetch): return .count(try engine.count(fetch, key: ReplyCache.Key(request)))
        case .template(let template): return .fetch(try engine.template(template, key: ReplyCache.Key(request)))
        case .get(let get): return .object(try engine.get(get))
        case .insert(let insert): return .insert(try engine.insert(insert, author: author))
        case .update(let update): return .object(try engine.update(update, author: author))
        case .delete(let delete):
            try engine.delete(delete, author: author)
            return .empty
        case .changes(let changes): return .changes(try engine.changes(changes))
        case .history(let history): return .history(try engine.history(history))
        // The server starts the event stream once this answer is written (``subscribe(peer:)``).
        case .subscribe(let subscribe):
            if let fetch = subscribe.fetch { try engine.checkSubscription(fetch) }
            return .subscribed(WireResponse.Subscribed())
        case .stats: return .stats(stats())
        }
    }

    /// Answered on the event loop: `ping`, which touches no store, and reading requests whose reply is kept while
    /// the stores are unchanged (``QueryEngine/keptReply(to:)``, which never waits).
    public func immediateAnswer(to request: WireRequest) -> DaemonReply? {
        if request.operation == .ping { return .empty }
        return engine.keptReply(to: request)
    }

    public func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        events.subscribe()
    }

    /// With a `fetch`, the `resultsChanged` events of its results (a `ResultsSubscription`); else every event.
    public func subscribe(_ request: WireRequest, peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        guard case .subscribe(let subscribe)? = try? WireCommand(request), let fetch = subscribe.fetch else {
            return events.subscribe()
        }
        return ResultsSubscription(fetch: fetch, engine: engine, events: events, storeThreads: storeThreads).events()
    }

    public func requestCompleted(_ record: RequestRecord) {
        statistics.record(duration: record.duration, failed: record.errorCode != nil)
    }

    private func stats() -> WireResponse.Stats {
        let snapshot = statistics.snapshot()
        return WireResponse.Stats(
            requests: snapshot.requests, errors: snapshot.errors, latency: snapshot.latency,
            stores: engine.library.coordinator.persistentStores.count, objects: engine.objectCount(),
            residentMemory: RequestStatistics.residentMemory(), subscribers: events.subscriberCount,
            uptime: statistics.uptime())
    }
}
