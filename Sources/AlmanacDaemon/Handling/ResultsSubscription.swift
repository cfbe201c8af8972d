import AlmanacWire
import Foundation
import ObjectGraph

/// The `resultsChanged` events of one `subscribe` request with a `fetch`: a fetched results controller on a context
/// of its own follows the daemon's saves, and each save that changes the results becomes one event.
///
/// The events are made as the connection reads them (the stream unfolds on its writer's task), from the daemon's
/// event hub: an `objectsChanged` event is merged into the context (the controller then reports what moved, without
/// fetching again); a store attached, replaced or detached makes the controller fetch again, and the event is the
/// difference between the lists before and after. The first event inserts every current result.
final class ResultsSubscription: @unchecked Sendable {  // the context and controller are only reached under `lock`
    private let fetch: WireRequest.Fetch
    private let engine: QueryEngine
    private let hub: EventHub
    private let storeThreads: StoreThreadPool
    private let lock = Lock()
    /// The controller and what the client holds: reached under `lock` only, on the store threads.
    private var state: State?
    /// The hub's events, read by the one task iterating ``events()``.
    private var hubEvents: AsyncStream<WireEvent>.Iterator?

    /// The context, its controller and the list of URIs the client was last sent.
    private final class State {
        let context: ManagedObjectContext
        let controller: FetchedResultsController<ManagedObject>
        let collector = Collector()
        var uris: [String] = []

        init(context: ManagedObjectContext, controller: FetchedResultsController<ManagedObject>) {
            self.context = context
            self.controller = controller
            controller.delegate = collector
        }
    }

    /// Keeps the controller's updates until they are sent.
    private final class Collector: FetchedResultsControllerDelegate {
        typealias Result = ManagedObject
        var updates: [FetchedResultsUpdate] = []

        func controller(
            _ controller: FetchedResultsController<ManagedObject>,
            didChangeContentWith update: FetchedResultsUpdate
        ) {
            updates.append(update)
        }
    }

    init(fetch: WireRequest.Fetch, engine: QueryEngine, events: EventHub, storeThreads: StoreThreadPool) {
        self.fetch = fetch
        self.engine = engine
        self.hub = events
        self.storeThreads = storeThreads
    }

    /// The events, until the connection stops reading them. The hub is subscribed to before the first fetch, so no
    /// save between the two is missed.
    func events() -> AsyncStream<WireEvent> {
        hubEvents = hub.subscribe().makeAsyncIterator()
        return AsyncStream(unfolding: { [self] in await next() })
    }

    private func next() async -> WireEvent? {
        if lock.withLock({ state == nil }) {
            if let first = try? await storeThreads.run({ [self] in try start() }) { return first.event }
            return nil
        }
        while let event = await hubEvents?.next() {
            let changes: WireEvent.ResultsChanged?
            switch event.kind {
            case .objectsChanged:
                changes = try? await storeThreads.run { [self] in try merge(event.fields) }
            case .storeAttached, .storeReplaced, .storeDetached:
                changes = try? await storeThreads.run { [self] in try fetchAgain() }
            default:
                changes = nil
            }
            if let changes { return changes.event }
        }
        return nil
    }

    // MARK: On the store threads

    /// Fetches the results: the first event inserts them all.
    private func start() throws -> WireEvent.ResultsChanged {
        try lock.withLock {
            let state = try engine.reading {
                let context = ManagedObjectContext(coordinator: engine.library.coordinator)
                let controller = FetchedResultsController<ManagedObject>(
                    fetchRequest: try engine.fetchRequest(fetch), managedObjectContext: context)
                try controller.performFetch()
                return State(context: context, controller: controller)
            }
            self.state = state
            let coding = ObjectCoding(coordinator: engine.library.coordinator)
            let objects = state.controller.fetchedObjects ?? []
            state.uris = objects.map(\.objectID.uriString)
            return WireEvent.ResultsChanged(
                inserted: objects.enumerated().map { position, object in
                    .init(position: position, object: coding.wireObject(object, properties: fetch.properties))
                })
        }
    }

    /// Merges a save into the context; the controller's update becomes the event (nil when the results did not
    /// change).
    private func merge(_ fields: JSONObject) throws -> WireEvent.ResultsChanged? {
        try lock.withLock {
            guard let state else { return nil }
            let coordinator = engine.library.coordinator
            func ids(_ key: String) -> Set<ManagedObjectID> {
                Set(
                    (fields[key]?.arrayValue ?? []).compactMap { value in
                        value.stringValue.flatMap(URL.init(string:)).flatMap(
                            coordinator.managedObjectID(forURIRepresentation:))
                    })
            }
            // An object the context does not hold may have come to match the fetch: like a new one, it is brought
            // in for the controller to judge (Core Data's merge, too, refreshes only the objects a context holds).
            let followed = Set(
                state.controller.fetchRequest.includesSubentities
                    ? (coordinator.managedObjectModel.entitiesByName[fetch.entity]?.selfAndDescendants.map(\.name) ?? [])
                    : [fetch.entity])
            let updated = ids("updated")
            let unknown = updated.filter { state.context.registeredObject(for: $0) == nil }
            let saved = ContextDidSave(
                insertedObjectIDs: ids("inserted").union(unknown.filter { followed.contains($0.entityName) }),
                updatedObjectIDs: updated.subtracting(unknown), deletedObjectIDs: ids("deleted"))
            state.collector.updates.removeAll()
            try engine.reading { state.context.mergeChanges(fromContextDidSave: saved) }
            let updates = state.collector.updates
            state.collector.updates.removeAll()
            guard !updates.isEmpty else { return nil }
            let coding = ObjectCoding(coordinator: coordinator)
            var changes = WireEvent.ResultsChanged()
            for update in updates {
                for change in update.objectChanges {
                    let object = {
                        coding.wireObject(
                            state.context.object(with: change.objectID), properties: self.fetch.properties)
                    }
                    switch change.type {
                    case .insert: changes.inserted.append(.init(position: change.newOffset ?? 0, object: object()))
                    case .delete:
                        changes.deleted.append(.init(position: change.offset ?? 0, uri: change.objectID.uriString))
                    case .move:
                        changes.moved.append(
                            .init(from: change.offset ?? 0, to: change.newOffset ?? 0, object: object()))
                    case .update: changes.updated.append(.init(position: change.newOffset ?? 0, object: object()))
                    }
                }
            }
            // One update per merge; should the controller have made several, or the event not turn the client's
            // list into the new one, the lists are compared instead.
            let now = (state.controller.fetchedObjects ?? []).map(\.objectID.uriString)
            guard updates.count == 1, changes.applied(to: state.uris) == now else {
                return difference(from: state.uris, to: now, state: state)
            }
            state.uris = now
            return changes
        }
    }

    /// Fetches again after the stores changed; the event is the difference of the lists.
    private func fetchAgain() throws -> WireEvent.ResultsChanged? {
        try lock.withLock {
            guard let state else { return nil }
            try engine.reading {
                state.controller.fetchRequest.affectedStores = try engine.fetchRequest(fetch).affectedStores
                try state.controller.performFetch()
            }
            state.collector.updates.removeAll()
            let now = (state.controller.fetchedObjects ?? []).map(\.objectID.uriString)
            return difference(from: state.uris, to: now, state: state)
        }
    }

    /// The event that turns `old` into `new` (nil when they are the same).
    private func difference(from old: [String], to new: [String], state: State) -> WireEvent.ResultsChanged? {
        state.uris = new
        let difference = new.difference(from: old).inferringMoves()
        guard !difference.isEmpty else { return nil }
        let coding = ObjectCoding(coordinator: engine.library.coordinator)
        let objects = state.controller.fetchedObjects ?? []
        func object(at position: Int) -> WireObject {
            coding.wireObject(objects[position], properties: fetch.properties)
        }
        var changes = WireEvent.ResultsChanged()
        for change in difference {
            switch change {
            case .remove(let offset, let uri, nil): changes.deleted.append(.init(position: offset, uri: uri))
            case .remove: continue
            case .insert(let offset, _, let from?):
                changes.moved.append(.init(from: from, to: offset, object: object(at: offset)))
            case .insert(let offset, _, nil):
                changes.inserted.append(.init(position: offset, object: object(at: offset)))
            }
        }
        return changes
    }
}
