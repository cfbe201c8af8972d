import Foundation

extension ManagedObjectContext {
    /// Creates a child context: a scratchpad on top of `parent` (Core Data's nested contexts).
    ///
    /// The child reads through its parent: its fetches and faults see the parent's unsaved changes on top of the
    /// stores. Its ``save()`` validates its changes and pushes them into the parent, whose own save writes them
    /// (no store is touched before). Discarding the child (or ``rollback()``) discards its changes. A child can
    /// have children of its own. The child belongs to its parent's isolation domain, keeps its parent alive, and
    /// uses the parent's coordinator. See <doc:NestedContexts>.
    public convenience init(parent: ManagedObjectContext) {
        self.init(coordinator: parent.persistentStoreCoordinator, parent: parent)
        parent.childLinks.removeAll { $0.context == nil }
        parent.childLinks.append(link)
    }

    /// The context at the top of this one's chain of parents: the one that saves to the stores.
    var root: ManagedObjectContext {
        var context = self
        while let parent = context.parent { context = parent }
        return context
    }

    // MARK: Reading through the parent

    /// The record an object's values come from: its parent's object (with the parent's unsaved changes) for a
    /// child, its store's record otherwise; `nil` when there is no such object (or the parent deleted it).
    func sourceRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        guard let parent else { return try persistentStoreCoordinator.record(for: objectID) }
        return try parent.liveObject(for: objectID).map(currentRecord(of:))
    }

    /// The object with an ID, loaded, unless it does not exist or was deleted in this context.
    func liveObject(for objectID: ManagedObjectID) throws -> ManagedObject? {
        checkStores()
        let object: ManagedObject
        if let known = registered[objectID] {
            object = known
        } else {
            guard let record = try sourceRecord(for: objectID) else { return nil }
            object = materialize(objectID, record: record)
        }
        if object.isFault { fulfillFault(of: object) }
        guard object.managedObjectContext === self, !object.isInvalid, !object.isDeletedFlag else { return nil }
        return object
    }

    /// An object's current values, unsaved changes included, as a record a child's object can be filled from.
    /// Related objects are named by the IDs they have now (temporary for new objects).
    func currentRecord(of object: ManagedObject) -> StoreRecord {
        let layout = object.slotLayout
        var row: [(any Sendable)?] = []
        row.reserveCapacity(layout.recordSlots.count)
        for slot in layout.recordSlots {
            let value = object.slots[slot]
            switch layout.kinds[slot] {
            case .toOne:
                row.append((value as? ManagedObject).flatMap { $0.isDeletedFlag ? nil : $0.objectID })
            case .toMany:
                let ids = ((value as? ToManyStorage)?.objects ?? []).filter { !$0.isDeletedFlag }.map(\.objectID)
                row.append(ids.isEmpty ? nil : ids)
            case .attribute, .other:
                // Attribute values are Sendable (see `assumeSendable`).
                row.append(value.map(assumeSendable))
            }
        }
        return StoreRecord(objectID: object.objectID, version: object.version, keys: layout.recordKeys, row: row)
    }

    /// A child's fetch: the parent's matching objects (its unsaved changes taking part, and its parent's in turn),
    /// then this context's own unsaved changes, sorted, offset and limited here.
    func fetchThroughParent(_ request: FetchRequest, names: Set<String>) throws -> [ManagedObject] {
        guard let parent else { preconditionFailure("only a child context fetches through its parent") }
        let wide = FetchRequest(entityName: request.entityName)
        wide.predicate = request.predicate
        wide.includesSubentities = request.includesSubentities
        wide.affectedStores = request.affectedStores
        wide.returnsObjectsAsFaults = false
        let found = try parent.fetchObjects(wide)
        registered.reserveCapacity(registered.count + found.count)
        var seen: Set<ObjectIdentifier> = []
        var candidates: [ManagedObject] = []
        for parentObject in found {
            let object = self.object(with: parentObject.objectID)
            if object.storage == .fault {
                object.apply(parent.currentRecord(of: parentObject), in: self)
                object.awakeFromFetch()
            } else if request.shouldRefreshRefetchedObjects, isRefetchable(object) {
                refreshLoaded(object, from: parent.currentRecord(of: parentObject))
            }
            guard !object.isDeletedFlag, !object.isInvalid, seen.insert(ObjectIdentifier(object)).inserted else {
                continue
            }
            if changed.contains(object), let predicate = request.predicate, try !predicate.evaluate(with: object) {
                continue
            }
            candidates.append(object)
        }
        let affected = request.affectedStores.map { Set($0.map(\.identifier)) }
        let extra =
            changed.objects.filter { !seen.contains(ObjectIdentifier($0)) && !$0.isDeletedFlag }
            + inserted.objects.filter { !$0.isDeletedFlag }
        for object in extra where names.contains(object.entity.name) {
            if let affected, let store = object.objectID.storeIdentifier, !affected.contains(store) { continue }
            if let predicate = request.predicate, try !predicate.evaluate(with: object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { candidates.append(object) }
        }
        var sorted = try sortInMemory(candidates, by: request.sortKeys)
        if request.fetchOffset > 0 { sorted.removeFirst(min(request.fetchOffset, sorted.count)) }
        if request.fetchLimit > 0, sorted.count > request.fetchLimit { sorted.removeSubrange(request.fetchLimit...) }
        return sorted
    }

    // MARK: Saving into the parent

    /// A child's save, once its changes are validated: sets them on the parent's objects (new objects are inserted
    /// there with the IDs they have here, deletions are deleted there with the parent's delete rules), then marks
    /// them saved here. Checks first that every object it changed still exists in the parent, so that a failed
    /// push changes neither context.
    func push(into parent: ManagedObjectContext, updates: Updates) throws {
        parent.checkStores()
        let newObjects = inserted.objects.filter { !$0.isDeletedFlag }
        let updatedObjects = updates.objects
        let deletedObjects = deleted.objects
        var targets: [ManagedObject] = []
        targets.reserveCapacity(updatedObjects.count)
        for object in updatedObjects {
            guard let target = try parent.liveObject(for: object.objectID) else {
                throw StoreError(
                    code: .objectNotFound,
                    message: "The parent context deleted an object this child context changed; refresh "
                        + "the object or discard the child's changes to it.",
                    context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
            }
            targets.append(target)
        }
        let doomed = try deletedObjects.compactMap { try parent.liveObject(for: $0.objectID) }

        // New objects first, so that relationships can name them.
        var copies: [ManagedObject] = []
        copies.reserveCapacity(newObjects.count)
        for object in newObjects {
            let copy = type(of: object).init(entity: object.entity, insertInto: nil)
            copy.objectID = object.objectID
            parent.adoptInserted(copy)
            if let store = assignedStores[ObjectIdentifier(object)] {
                parent.assignedStores[ObjectIdentifier(copy)] = store
            }
            copies.append(copy)
        }
        for (object, copy) in zip(newObjects, copies) {
            let kinds = object.slotLayout.kinds
            for index in kinds.indices where !kinds[index].isFetched {
                copy.slots[index] = parent.counterpart(of: object.slots[index], kind: kinds[index])
            }
        }
        if parent.isRecordingUndo {
            parent.openGroup.reserveCapacity(parent.openGroup.count + newObjects.count + updatedObjects.count)
        }
        // Every updated object joins the parent's lists of changed objects: grown once, not by doubling.
        parent.changed.reserveCapacity(parent.changed.count + updatedObjects.count)
        parent.pending.updated.reserveCapacity(parent.pending.updated.count + updatedObjects.count)
        for (position, target) in targets.enumerated() {
            let object = updatedObjects[position]
            let kinds = object.slotLayout.kinds
            // The child's snapshot holds the values the parent's object has unless the parent changed it since:
            // its buffer, freed when the child settles, becomes the parent's slots, so the push neither copies the
            // parent's values for its snapshot nor frees the child's (a third of a child's save).
            var childSnapshot: [Any?]? = nil
            swap(&childSnapshot, &object.snapshot)
            target.captureSnapshot(reusing: consume childSnapshot)
            for index in updates.slots(at: position) {
                switch kinds[index] {
                case .attribute: target.setValueTracked(object.slots.copyOfSlot(index), slot: index)
                case .toOne, .toMany:
                    target.setValueTracked(parent.counterpart(of: object.slots[index], kind: kinds[index]), slot: index)
                case .other: continue  // fetched properties
                }
            }
        }
        // The parent's delete rules may delete more there: siblings that merge automatically hear of those too.
        let deletedBefore = parent.hasMergingChildren ? parent.deleted : nil
        for target in doomed { parent.delete(target) }
        let event = finishPush(inserted: newObjects, updated: updatedObjects, deleted: deletedObjects)
        parent.processPendingChanges()
        if let deletedBefore, var event {
            let deletedThere = parent.deleted.objects.filter { !deletedBefore.contains($0) }
            event.deletedObjectIDs.formUnion(deletedThere.map(\.objectID))
            parent.mergeIntoChildren(event, except: self)
        }
    }

    /// Registers a new object a child pushed, as ``insert(_:)`` does but without waking it again.
    private func adoptInserted(_ object: ManagedObject) {
        object.managedObjectContext = self
        object.isInsertedFlag = true
        registered[object.objectID] = object
        inserted.add(object)
        pending.inserted.append(object)
        recordUndo(.insert(object))
    }

    /// A child's slot value as this context's: related objects become this context's objects with the same IDs.
    private func counterpart(of value: Any?, kind: EntityDescription.Layout.SlotKind) -> Any? {
        func isPushed(_ object: ManagedObject) -> Bool { !(object.isInsertedFlag && object.isDeletedFlag) }
        switch kind {
        case .toOne:
            return (value as? ManagedObject).flatMap { isPushed($0) ? object(with: $0.objectID) : nil }
        case .toMany:
            let objects = (value as? ToManyStorage)?.objects ?? []
            return ToManyStorage(objects.filter(isPushed).map { object(with: $0.objectID) })
        case .attribute, .other:
            return value
        }
    }

    /// Marks a child's pushed changes saved: new objects keep their (temporary) IDs until the top context saves.
    /// Returns the save's event when someone hears of it (observers, or contexts that merge automatically).
    private func finishPush(
        inserted newObjects: [ManagedObject], updated: [ManagedObject],
        deleted deletedObjects: [ManagedObject]
    ) -> ContextDidSave? {
        for object in newObjects {
            object.isInsertedFlag = false
            object.snapshot = nil
        }
        settleSavedChanges(inserted: newObjects, updated: updated, deleted: deletedObjects)
        let mergingChildren = hasMergingChildren
        guard !observers.isEmpty || mergingChildren || parent?.hasMergingChildren == true else { return nil }
        var event = ContextDidSave(contextIdentifier: ObjectIdentifier(self))
        event.insertedObjectIDs = Set(newObjects.map(\.objectID))
        event.updatedObjectIDs = Set(updated.map(\.objectID))
        event.deletedObjectIDs = Set(deletedObjects.map(\.objectID))
        post(.didSave(event))
        if mergingChildren { mergeIntoChildren(event) }
        return event
    }

    // MARK: Permanent IDs

    /// Gives objects registered under temporary IDs their permanent ones, here and in every descendant.
    func adoptPermanentIDs(_ renamed: [(ManagedObjectID, ManagedObjectID)]) {
        for (old, new) in renamed {
            guard let object = registered[old] else { continue }
            registered[old] = nil
            object.objectID = new
            registered[new] = object
        }
        adoptPermanentIDsInChildren(renamed)
    }

    /// The IDs objects change from and to, for objects whose ID is not the one given.
    func renames(of objects: [ManagedObject], to ids: [ManagedObjectID]) -> [(ManagedObjectID, ManagedObjectID)] {
        zip(objects, ids).compactMap { object, id in object.objectID == id ? nil : (object.objectID, id) }
    }

    /// ``adoptPermanentIDs(_:)`` in every live child.
    func adoptPermanentIDsInChildren(_ renamed: [(ManagedObjectID, ManagedObjectID)]) {
        for link in childLinks {
            link.context?.adoptPermanentIDs(renamed)
        }
    }
}

extension EntityDescription.Layout.SlotKind {
    /// Whether the slot is a fetched property's (not pushed, not saved).
    var isFetched: Bool {
        if case .other = self { true } else { false }
    }
}
