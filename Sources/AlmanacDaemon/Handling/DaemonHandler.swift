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

    public func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> JSONObject {
        if request.op == WireOperation.stats.rawValue { return try await storeThreads.run { stats() } }
        let engine = self.engine
        return try await storeThreads.run { try engine.execute(request) }
    }

    /// Answered on the event loop: `ping`, which touches no store, and reading requests whose reply is kept while
    /// the stores are unchanged (``QueryEngine/keptReply(to:)``, which never waits).
    public func immediateAnswer(to request: WireRequest) -> JSONObject? {
        if request.operation == .ping { return [:] }
        return engine.keptReply(to: request)
    }

    public func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        events.subscribe()
    }

    public func requestCompleted(_ record: RequestRecord) {
        statistics.record(duration: record.duration, failed: record.errorCode != nil)
    }

    private func stats() -> JSONObject {
        let snapshot = statistics.snapshot()
        return [
            "requests": .int(Int64(snapshot.requests)), "errors": .int(Int64(snapshot.errors)),
            "latency": ["p50": .double(snapshot.p50), "p90": .double(snapshot.p90), "p99": .double(snapshot.p99)],
            "stores": .int(Int64(engine.library.coordinator.persistentStores.count)),
            "objects": .int(Int64(engine.objectCount())),
            "residentMemory": .int(Int64(RequestStatistics.residentMemory())),
            "subscribers": .int(Int64(events.subscriberCount)),
        ]
    }
}
