import Foundation

/// One primitive change, recorded so that undo can reverse it and redo repeat it.
enum UndoOperation {
    case set(ManagedObject, Int, old: Any?, new: Any?)
    case toManyInsert(ManagedObject, Int, ManagedObject, Int)
    case toManyRemove(ManagedObject, Int, ManagedObject, Int)
    case insert(ManagedObject)
    case delete(ManagedObject, wasInserted: Bool)
}

extension ManagedObjectContext {
    // MARK: Undo and redo

    /// Whether there is a group of changes to undo (including changes not yet closed into a group).
    public var canUndo: Bool { !undoStack.isEmpty || !openGroup.isEmpty }
    /// Whether there is an undone group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Whether changes are recorded for undo now (callers may skip building an operation otherwise).
    var isRecordingUndo: Bool { isUndoRegistrationEnabled && !isApplyingUndo }

    func recordUndo(_ operation: UndoOperation) {
        guard isRecordingUndo else { return }
        openGroup.append(operation)
        if !redoStack.isEmpty { redoStack.removeAll() }
    }

    func closeUndoGroup() {
        guard !openGroup.isEmpty else { return }
        undoStack.append(openGroup)
        openGroup = []
        if undoLevels > 0, undoStack.count > undoLevels { undoStack.removeFirst(undoStack.count - undoLevels) }
    }

    /// Reverses the last group of changes: the changes made between two ``processPendingChanges()`` calls.
    public func undo() {
        closeUndoGroup()
        guard let group = undoStack.popLast() else { return }
        isApplyingUndo = true
        for operation in group.reversed() { apply(operation, forward: false) }
        isApplyingUndo = false
        redoStack.append(group)
        processPendingChanges()
    }

    /// Repeats the last undone group of changes.
    public func redo() {
        closeUndoGroup()
        guard let group = redoStack.popLast() else { return }
        isApplyingUndo = true
        for operation in group { apply(operation, forward: true) }
        isApplyingUndo = false
        undoStack.append(group)
        processPendingChanges()
    }

    /// Forgets every undo and redo group.
    public func removeAllUndoActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup.removeAll()
    }

    private func apply(_ operation: UndoOperation, forward: Bool) {
        switch operation {
        case let .set(object, index, old, new):
            object.captureSnapshot()
            object.slots[index] = forward ? new : old
            object.fetchedPropertyCache.removeAll()
            noteChanged(object, notify: true)
        case let .toManyInsert(object, index, target, position):
            object.captureSnapshot()
            let storage = object.slots[index] as! ToManyStorage
            if forward { storage.insert(target, at: position) } else { storage.remove(target) }
            noteChanged(object, notify: true)
        case let .toManyRemove(object, index, target, position):
            object.captureSnapshot()
            let storage = object.slots[index] as! ToManyStorage
            if forward { storage.remove(target) } else { storage.insert(target, at: position) }
            noteChanged(object, notify: true)
        case let .insert(object):
            if forward {
                object.managedObjectContext = self
                object.isInsertedFlag = true
                registered[object.objectID] = object
                inserted.add(object)
                pending.inserted.append(object)
            } else {
                forget(object)
                object.isInsertedFlag = false
                object.managedObjectContext = nil
                pending.deleted.add(object)
            }
        case let .delete(object, wasInserted):
            if forward {
                object.isDeletedFlag = true
                if wasInserted { inserted.remove(object) } else { deleted.add(object) }
                pending.deleted.add(object)
            } else {
                undelete(object)
            }
        }
    }

    // MARK: Discarding changes

    /// Discards every unsaved change: inserted objects leave the context, deleted ones come back, changed ones get
    /// their saved values again. The undo stack is emptied.
    public func rollback() {
        // What observers heard of is reversed: new objects they saw are reported deleted, deleted saved objects
        // inserted again.
        let newlyInserted = Set(pending.inserted.map(ObjectIdentifier.init))
        let gone = inserted.objects.filter { !newlyInserted.contains(ObjectIdentifier($0)) }
        let back = deleted.objects.filter { !$0.isInsertedFlag && !pending.deleted.contains($0) }
        for object in inserted.objects + deleted.objects.filter(\.isInsertedFlag) {
            discardInserted(object)
        }
        for object in takeDeletedWhileInserted() { discardInserted(object) }
        for object in changed.objects + deleted.objects {
            if let snapshot = object.snapshot {
                object.slots = snapshot
                object.snapshot = nil
                object.fetchedPropertyCache.removeAll()
                pending.refreshed.add(object)
            }
            object.isDeletedFlag = false
        }
        inserted.removeAll()
        deleted.removeAll()
        changed.removeAll()
        assignedStores.removeAll()
        removeAllUndoActions()
        pending.updated.removeAll()
        pending.inserted.removeAll()
        pending.deleted.removeAll()
        pending.deleted.formUnion(gone)
        pending.appeared.append(contentsOf: back)
        processPendingChanges()
    }

    private func discardInserted(_ object: ManagedObject) {
        forget(object)
        object.isInsertedFlag = false
        object.isDeletedFlag = false
        object.managedObjectContext = nil
    }

    /// Forgets every object: the context is empty, as if new. Objects handed out before become invalid.
    public func reset() {
        for object in registered.values {
            object.managedObjectContext = nil
            object.storage = .invalid
            object.snapshot = nil
            object.faultValues = nil
        }
        registered.removeAll()
        inserted.removeAll()
        deletedWhileInserted.removeAll()
        deleted.removeAll()
        changed.removeAll()
        assignedStores.removeAll()
        removeAllUndoActions()
        pending = PendingNotification()
    }

    /// Reloads an object from its store.
    ///
    /// - Parameters:
    ///   - object: a saved object of this context (inserted objects are left alone).
    ///   - mergeChanges: `false` discards the object's unsaved changes and turns it back into a fault, freeing its
    ///     values; `true` loads the store's values and re-applies the object's unsaved changes on top.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.managedObjectContext === self, !object.isInsertedFlag else { return }
        if !mergeChanges {
            object.snapshot = nil
            object.slots = Array(repeating: nil, count: object.slots.count)
            object.storage = .fault
            object.faultValues = nil
            object.fetchedPropertyCache.removeAll()
            changed.remove(object)
            if object.isDeletedFlag {
                object.isDeletedFlag = false
                deleted.remove(object)
            }
            pending.refreshed.add(object)
            return
        }
        guard let record = try? persistentStoreCoordinator.record(for: object.objectID) else { return }
        let local = object.changedSlots().map { ($0, object.slots[$0]) }
        object.apply(record, in: self)
        if !local.isEmpty {
            object.captureSnapshot()
            for (index, value) in local { object.slots[index] = value }
        }
        pending.refreshed.add(object)
    }
}
