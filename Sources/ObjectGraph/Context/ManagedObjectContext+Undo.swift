import Foundation

/// One primitive change, recorded so that undo can reverse it and redo repeat it.
enum UndoOperation {
    /// A slot's value changed; `other` is the value it had before. Applying the operation swaps `other` with the
    /// slot's value, so the applied operation holds what undoing or redoing it again puts back (as Core Data's undo
    /// manager records the inverse of each undo). Keeping one value, not the old and the new, makes the
    /// operation 56 bytes rather than 88: a child context's save of 10k changes records 10k of them.
    case set(ManagedObject, Int, other: Any?)
    case toManyInsert(ManagedObject, Int, ManagedObject, Int)
    case toManyRemove(ManagedObject, Int, ManagedObject, Int)
    case insert(ManagedObject)
    case delete(ManagedObject, wasInserted: Bool)
}

/// The changes made between two ``ManagedObjectContext/processPendingChanges()`` calls, undone and redone together.
struct UndoGroup {
    var operations: [UndoOperation]
    /// The name a user interface shows for it ("Undo Rename"); empty when none was given.
    var actionName: String
}

extension ManagedObjectContext {
    // MARK: Undo and redo

    /// Whether there is a group of changes to undo (including changes not yet closed into a group).
    ///
    /// As in Core Data, a save leaves the undo stack as it is: changes saved can be undone, and the undo is then an
    /// unsaved change of its own (undoing an insertion that was saved deletes the object, undoing a saved deletion
    /// inserts it again). ``rollback()`` and ``reset()`` empty the stack.
    public var canUndo: Bool { !undoStack.isEmpty || !openGroup.isEmpty }
    /// Whether there is an undone group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// The action name of the group ``undo()`` would reverse (empty when it has none, or there is nothing to undo).
    public var undoActionName: String {
        openGroup.isEmpty ? undoStack.last?.actionName ?? "" : openActionName
    }

    /// The action name of the group ``redo()`` would repeat (empty when it has none, or there is nothing to redo).
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the current group of changes for a user interface (Core Data's `undoManager.setActionName(_:)`): the
    /// changes made since the last ``processPendingChanges()``, or, when there are none, the last group closed.
    public func setActionName(_ name: String) {
        if openGroup.isEmpty, !undoStack.isEmpty {
            undoStack[undoStack.count - 1].actionName = name
        } else {
            openActionName = name
        }
    }

    /// Whether changes are recorded for undo now (callers may skip building an operation otherwise).
    var isRecordingUndo: Bool { isUndoRegistrationEnabled && !isApplyingUndo }

    func recordUndo(_ operation: consuming UndoOperation) {
        guard isRecordingUndo else { return }
        openGroup.append(operation)
        if !redoStack.isEmpty { redoStack.removeAll() }
    }

    func closeUndoGroup() {
        guard !openGroup.isEmpty else { return }
        undoStack.append(UndoGroup(operations: openGroup, actionName: openActionName))
        openGroup = []
        openActionName = ""
        trimUndoStack()
    }

    /// Drops the oldest groups beyond ``undoLevels``.
    func trimUndoStack() {
        if undoLevels > 0, undoStack.count > undoLevels { undoStack.removeFirst(undoStack.count - undoLevels) }
    }

    /// Reverses the last group of changes: the changes made between two ``processPendingChanges()`` calls.
    public func undo() {
        closeUndoGroup()
        guard let group = undoStack.popLast() else { return }
        isApplyingUndo = true
        var applied = group
        for position in applied.operations.indices.reversed() {
            applied.operations[position] = apply(applied.operations[position], forward: false)
        }
        isApplyingUndo = false
        redoStack.append(applied)
        processPendingChanges()
    }

    /// Repeats the last undone group of changes.
    public func redo() {
        closeUndoGroup()
        guard let group = redoStack.popLast() else { return }
        isApplyingUndo = true
        var applied = group
        for position in applied.operations.indices {
            applied.operations[position] = apply(applied.operations[position], forward: true)
        }
        isApplyingUndo = false
        undoStack.append(applied)
        trimUndoStack()
        processPendingChanges()
    }

    /// Forgets every undo and redo group.
    public func removeAllUndoActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup.removeAll()
        openActionName = ""
    }

    /// Applies one operation backwards (undo) or forwards (redo); returns the operation that reverses what it did.
    /// Insertions and deletions look at the object's state now, since a save may have come in between: an object
    /// whose insertion was saved is deleted (not simply dropped), and one whose deletion was saved is inserted again.
    private func apply(_ operation: UndoOperation, forward: Bool) -> UndoOperation {
        switch operation {
        case .set(let object, _, _), .toManyInsert(let object, _, _, _), .toManyRemove(let object, _, _, _):
            // The object may have been turned into a fault since (`refresh(_:mergeChanges: false)`): its values
            // load first, so that they do not overwrite the undone one when it fires later.
            if object.storage == .fault { object.fireFault() }
        default:
            break
        }
        switch operation {
        case .set(let object, let index, var other):
            object.captureSnapshot()
            swap(&object.slots[index], &other)
            object.touch(index)
            object.fetchedPropertyCache.removeAll()
            noteChanged(object, notify: true)
            return .set(object, index, other: other)
        case let .toManyInsert(object, index, target, position):
            // A fault that could not load (its object is gone from the store) has no list to change.
            guard let storage = object.slots[index] as? ToManyStorage else { return operation }
            object.captureSnapshot()
            if forward { storage.insert(target, at: position) } else { storage.remove(target) }
            noteChanged(object, notify: true)
            return operation
        case let .toManyRemove(object, index, target, position):
            guard let storage = object.slots[index] as? ToManyStorage else { return operation }
            object.captureSnapshot()
            if forward { storage.remove(target) } else { storage.insert(target, at: position) }
            noteChanged(object, notify: true)
            return operation
        case let .insert(object):
            if forward { reinsert(object) } else { unmake(object) }
            return operation
        case let .delete(object, _):
            if forward { redelete(object) } else { reinsert(object) }
            return operation
        }
    }

    /// Brings an object back into the context: a deleted one is undeleted, one that left it (its insertion undone,
    /// or its deletion saved) is inserted again.
    private func reinsert(_ object: ManagedObject) {
        if object.managedObjectContext === self, object.isDeletedFlag {
            undelete(object)
            return
        }
        guard object.managedObjectContext == nil else { return }
        if object.storage == .invalid { object.storage = .loaded }
        object.snapshot = nil
        object.managedObjectContext = self
        object.isInsertedFlag = true
        registered[object.objectID] = object
        inserted.add(object)
        pending.inserted.append(object)
    }

    /// Reverses an insertion: an unsaved object leaves the context, a saved one is deleted.
    private func unmake(_ object: ManagedObject) {
        guard object.managedObjectContext === self else { return }
        if object.isInsertedFlag {
            forget(object)
            object.isInsertedFlag = false
            object.isDeletedFlag = false
            object.managedObjectContext = nil
            // Observers (a fetched results controller) hear an undone insertion as a deletion.
            pending.deleted.add(object)
        } else {
            redelete(object)
        }
    }

    /// Deletes an object again (delete rules are not applied: their changes are operations of the same group).
    private func redelete(_ object: ManagedObject) {
        guard object.managedObjectContext === self, !object.isDeletedFlag else { return }
        object.isDeletedFlag = true
        if object.isInsertedFlag {
            inserted.remove(object)
            deletedWhileInserted.add(object)
        } else {
            deleted.add(object)
        }
        pending.deleted.add(object)
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
        valuesBeforeChange.removeAll()
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
        guard let record = try? sourceRecord(for: object.objectID) else { return }
        refreshLoaded(object, from: record)
    }

    /// Puts a record's values in a loaded object, its unsaved changes kept on top, and reports it refreshed.
    func refreshLoaded(_ object: ManagedObject, from record: StoreRecord) {
        let local = object.changedSlots().map { ($0, object.slots[$0]) }
        object.apply(record, in: self)
        if !local.isEmpty {
            object.captureSnapshot()
            for (index, value) in local {
                object.slots[index] = value
                object.touch(index)
            }
        }
        pending.refreshed.add(object)
    }

    /// Refreshes every registered object (Core Data's `refreshAllObjects()`): objects without unsaved changes turn
    /// back into faults, freeing their values (they load again, from the stores' current state, when next read);
    /// objects with unsaved changes load the stores' values and keep their changes on top (as
    /// ``refresh(_:mergeChanges:)`` with `true`). Inserted objects are left alone. The next objects-did-change event
    /// reports the refreshed objects.
    public func refreshAllObjects() {
        checkStores()
        processPendingChanges()
        let loaded = registered.objects(where: { object in
            !object.isFault && !object.isInsertedFlag && object.managedObjectContext === self
        })
        for object in loaded {
            refresh(object, mergeChanges: object.isDeletedFlag || object.hasChangedSlots)
        }
    }
}
