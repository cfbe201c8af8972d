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

/// What a save does when objects changed in their store since the context read them (optimistic locking), and when
/// new objects break a uniqueness constraint (see ``EntityDescription/uniquenessConstraints``).
///
/// For uniqueness conflicts the resolving policies act as Core Data's by-property merge policies: one object
/// survives (the saved one, else the first new one) and takes the other new objects' relationships; they are
/// deleted. A saved object changed into another's values cannot be resolved: that save fails whatever the policy.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with ``StoreError/Code/mergeConflict`` or ``StoreError/Code/constraintConflict`` listing the
    /// objects; nothing is written.
    case error
    /// The store's values win: conflicting objects drop their unsaved changes, and the rest is saved. A new object
    /// that shares a saved object's constrained values is merged into it, whose values stay.
    case storeWins
    /// The context's values win: they overwrite what is in the store. A new object that shares a saved object's
    /// constrained values is merged into it, and its values overwrite the saved ones (an "upsert").
    case inMemoryWins
}

/// Changes collected for the next objects-did-change event.
struct PendingNotification {
    /// Objects inserted since the last event, in order, perhaps twice or since deleted or undone: the event takes
    /// those still inserted. A plain list, since inserting an object must stay cheap and most contexts have no
    /// observer to build events for.
    var inserted: [ManagedObject] = []
    var updated = ObjectList()
    var deleted = ObjectList()
    var refreshed = ObjectList()
    var invalidated = ObjectList()

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
    }
}

extension ManagedObjectContext {
    /// Calls `handler` for every event of this context, synchronously, in the context's isolation domain.
    /// Returns a token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping (ContextEvent) -> Void) -> UUID {
        let token = UUID()
        observers[token] = handler
        return token
    }

    /// Stops calling an observer.
    public func removeObserver(_ token: UUID) {
        observers[token] = nil
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
        let event = ObjectsDidChange(inserted: Set(stillInserted),
                                     updated: Set(pending.updated.objects.filter { !$0.isDeletedFlag }),
                                     deleted: Set(pending.deleted.objects), refreshed: Set(pending.refreshed.objects),
                                     invalidated: Set(pending.invalidated.objects))
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
