import Foundation

/// Something that happened in a context, delivered to its observers synchronously, in its isolation domain.
public enum ContextEvent {
    /// Objects changed since the last event (sent by ``ManagedObjectContext/processPendingChanges()``, which
    /// fetches, saves, undo and redo call).
    case objectsDidChange(ObjectsDidChange)
    /// A save is about to validate and write.
    case willSave
    /// A save succeeded.
    case didSave(ContextDidSave)
}

/// The objects that changed in a context since the last objects-did-change event.
public struct ObjectsDidChange {
    /// Objects inserted.
    public var inserted: Set<ManagedObject> = []
    /// Objects whose values changed.
    public var updated: Set<ManagedObject> = []
    /// Objects deleted.
    public var deleted: Set<ManagedObject> = []
    /// Objects whose values were reloaded from their store.
    public var refreshed: Set<ManagedObject> = []
    /// Objects whose data is gone (their store was removed).
    public var invalidated: Set<ManagedObject> = []

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
    }
}

/// What a save wrote, as object IDs: `Sendable`, so it can be handed to other contexts and threads.
public struct ContextDidSave: Sendable, Hashable {
    /// A value identifying the saving context (for ignoring one's own saves).
    public var contextIdentifier: ObjectIdentifier?
    /// IDs of the objects inserted (permanent IDs).
    public var insertedObjectIDs: Set<ManagedObjectID>
    /// IDs of the objects updated.
    public var updatedObjectIDs: Set<ManagedObjectID>
    /// IDs of the objects deleted.
    public var deletedObjectIDs: Set<ManagedObjectID>

    /// Creates an event.
    public init(contextIdentifier: ObjectIdentifier? = nil, insertedObjectIDs: Set<ManagedObjectID> = [],
                updatedObjectIDs: Set<ManagedObjectID> = [], deletedObjectIDs: Set<ManagedObjectID> = []) {
        self.contextIdentifier = contextIdentifier
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
    }
}

/// Changes collected for the next objects-did-change event.
struct PendingNotification {
    /// Objects inserted since the last event, in order, perhaps twice or since deleted or undone: the event takes
    /// those still inserted. A plain list, since inserting an object must stay cheap and most contexts have no
    /// observer to build events for.
    var inserted: [ManagedObject] = []
    var updated = PositionedObjectList(.pendingUpdate)
    var deleted = ObjectList()
    var refreshed = ObjectList()
    var invalidated = ObjectList()
    /// Objects back in the context that are not new: saved by another context and brought in by
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``, or deleted in an earlier event and brought back
    /// by undo or rollback. Reported as inserted, as Core Data does.
    var appeared: [ManagedObject] = []

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
            && appeared.isEmpty
    }
}

extension ManagedObjectContext {
    /// Calls `handler` for every event of this context, synchronously, in the context's isolation domain.
    /// Returns a token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping (ContextEvent) -> Void) -> UUID {
        let token = UUID()
        observers[token] = handler
        link.isObserved = true
        return token
    }

    /// Stops calling an observer.
    public func removeObserver(_ token: UUID) {
        observers[token] = nil
        link.isObserved = !observers.isEmpty
    }

    func post(_ event: ContextEvent) {
        for handler in observers.values { handler(event) }
    }

    /// Ends the current undo group and sends an objects-did-change event for what changed since the last one.
    public func processPendingChanges() {
        if automaticMerging != nil { mergePendingSaves() }
        closeUndoGroup()
        guard !pending.isEmpty else { return }
        guard !observers.isEmpty else {
            pending = PendingNotification()
            return
        }
        let stillInserted = pending.inserted.filter { $0.isInserted && $0.managedObjectContext === self }
        // An object inserted since the last event is reported as inserted only: neither updated nor, when deleted
        // again meanwhile, deleted. One inserted earlier and changed or deleted now is reported as such (as in Core
        // Data), so that observers such as ``FetchedResultsController`` see unsaved objects change.
        let newlyInserted = Set(pending.inserted.map(ObjectIdentifier.init))
        let appeared = pending.appeared.filter { $0.managedObjectContext === self && !$0.isDeletedFlag }
        let event = ObjectsDidChange(
            inserted: Set(stillInserted).union(appeared),
            updated: Set(pending.updated.objects.filter {
                !$0.isDeletedFlag && !newlyInserted.contains(ObjectIdentifier($0))
            }),
            deleted: Set(pending.deleted.objects.filter { !newlyInserted.contains(ObjectIdentifier($0)) }),
            refreshed: Set(pending.refreshed.objects), invalidated: Set(pending.invalidated.objects))
        pending = PendingNotification()
        if !event.isEmpty { post(.objectsDidChange(event)) }
    }

    /// Brings another context's save into this one: updated objects are refreshed (keeping this context's own
    /// unsaved changes on top), deleted objects are removed, and an objects-did-change event reports both.
    public func mergeChanges(fromContextDidSave event: ContextDidSave) {
        checkStores()
        for id in event.updatedObjectIDs {
            guard let object = registered[id] else { continue }
            // A fault fires from its store from now on, not with the values its fetch read.
            guard !object.isFault else {
                object.faultValues = nil
                continue
            }
            refresh(object, mergeChanges: true)
        }
        for id in event.deletedObjectIDs {
            guard let object = registered[id] else { continue }
            forget(object)
            object.storage = .invalid
            pending.deleted.add(object)
        }
        // New objects of other contexts are made here (as faults) only for a context that is observed, so that its
        // observers hear of them; an unobserved context registers nothing it was not asked for.
        if !observers.isEmpty, event.contextIdentifier != ObjectIdentifier(self) {
            for id in event.insertedObjectIDs where registered[id] == nil { pending.appeared.append(object(with: id)) }
        }
        processPendingChanges()
    }

    /// Removes an object from every list of the context and unregisters it.
    func forget(_ object: ManagedObject) {
        registered[object.objectID] = nil
        inserted.remove(object)
        deleted.remove(object)
        changed.remove(object)
        assignedStores[ObjectIdentifier(object)] = nil
    }
}
