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
            self?.publish(
                Self.objectsChanged(
                    inserted: saved.insertedObjectIDs, updated: saved.updatedObjectIDs,
                    deleted: saved.deletedObjectIDs))
        }
    }

    /// Publishes an `objectsChanged` event for every commit of another process to `store` that the store
    /// announces (the PostgreSQL personal store `LISTEN`s; stores that cannot announce give no task): on each
    /// announcement the store's persistent history after the last transaction seen is read, and the objects the
    /// other daemons' transactions changed are published (this daemon's own writes, named
    /// `QueryEngine/writerName`, were published by ``publishSaves(of:)``). Fetch subscriptions merge the event and
    /// send `resultsChanged`. The task ends when cancelled or when the store is removed.
    ///
    /// - Parameters:
    ///   - store: the store whose announcements are followed.
    ///   - coordinator: the coordinator the store is attached to, whose history is read.
    ///   - storeThreads: the threads that run the history reads (store work stays off the cooperative pool).
    ///   - skipping: the context name of the transactions not to publish.
    /// - Returns: the publishing task, or `nil` for a store that cannot announce.
    public func publishRemoteChanges(
        of store: PersistentStore, coordinator: PersistentStoreCoordinator, storeThreads: StoreThreadPool,
        skipping: String?
    ) -> Task<Void, Never>? {
        guard let announcements = store.remoteChangeAnnouncements() else { return nil }
        return Task { [weak self] in
            // Subscribed first, then the token read: a commit between the two is both after the token and announced.
            var last = try? await storeThreads.run { coordinator.currentPersistentHistoryToken(fromStores: [store]) }
            for await _ in announcements {
                let after = last
                let read = try? await storeThreads.run {
                    () throws -> ([PersistentHistoryTransaction], PersistentHistoryToken?) in
                    let request = PersistentHistoryChangeRequest.fetchHistory(after: after)
                    request.affectedStores = [store]
                    do {
                        let transactions = try coordinator.fetchHistory(request)
                        return (transactions, transactions.last?.token ?? after)
                    } catch let error as StoreError where error.code == .persistentHistoryTokenExpired {
                        // History was trimmed past the last token: start again from now.
                        return ([], coordinator.currentPersistentHistoryToken(fromStores: [store]))
                    }
                }
                guard let (transactions, token) = read else { continue }
                last = token
                var inserted = Set<ManagedObjectID>()
                var updated = Set<ManagedObjectID>()
                var deleted = Set<ManagedObjectID>()
                for transaction in transactions where skipping == nil || transaction.contextName != skipping {
                    for change in transaction.changes {
                        let id = change.changedObjectID
                        switch change.changeType {
                        case .insert: inserted.insert(id)
                        case .update: updated.insert(id)
                        case .delete: deleted.insert(id)
                        }
                    }
                }
                guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { continue }
                // An object inserted and then deleted in the same batch is gone: it is reported deleted only.
                inserted.subtract(deleted)
                updated.subtract(inserted.union(deleted))
                self?.publish(Self.objectsChanged(inserted: inserted, updated: updated, deleted: deleted))
            }
        }
    }

    /// An `objectsChanged` event.
    static func objectsChanged(
        inserted: Set<ManagedObjectID>, updated: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>
    ) -> WireEvent {
        func uris(_ ids: Set<ManagedObjectID>) -> JSONValue {
            .array(ids.sorted().map { .string($0.uriRepresentation().absoluteString) })
        }
        return WireEvent(
            kind: .objectsChanged,
            fields: ["inserted": uris(inserted), "updated": uris(updated), "deleted": uris(deleted)])
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
