import AlmanacWire
import Foundation
import ObjectGraph

/// Fans subscription events out to every subscribed connection.
public final class EventHub: Sendable {
    private let subscribers = LockedValue<[UUID: AsyncStream<WireEvent>.Continuation]>([:])

    /// Creates a hub.
    public init() {}

    /// A new subscription; it ends when the connection closes (the server stops iterating).
    public func subscribe() -> AsyncStream<WireEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: WireEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let token = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: token) }
        }
        subscribers.withLock { $0[token] = continuation }
        return stream
    }

    /// Sends an event to every subscriber.
    public func publish(_ event: WireEvent) {
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// The number of live subscriptions.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Ends every subscription.
    public func finishAll() {
        let targets = subscribers.withLock { state in
            defer { state.removeAll() }
            return Array(state.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
