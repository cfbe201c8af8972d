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

    /// Publishes an `objectsChanged` event (`inserted`, `updated`, `deleted` URI arrays) for every save through
    /// `coordinator`, from now on; returns the coordinator's observer token.
    @discardableResult
    public func publishSaves(of coordinator: PersistentStoreCoordinator) -> UUID {
        coordinator.addSaveObserver { [weak self] saved in
            func uris(_ ids: Set<ManagedObjectID>) -> JSONValue {
                .array(ids.sorted().map { .string($0.uriRepresentation().absoluteString) })
            }
            let fields: JSONObject = [
                "inserted": uris(saved.insertedObjectIDs), "updated": uris(saved.updatedObjectIDs),
                "deleted": uris(saved.deletedObjectIDs),
            ]
            self?.publish(WireEvent(kind: .objectsChanged, fields: fields))
        }
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
