import Foundation

extension ManagedObjectContext {
    // MARK: Optimistic-locking conflicts

    /// Resolves a save's optimistic-locking conflicts by the context's ``mergePolicy`` (see ``MergePolicy``), so
    /// that the save can be tried again; with ``MergePolicy/error`` throws `error`, completed with a
    /// ``MergeConflict`` per object, and changes nothing.
    func resolveMergeConflicts(_ error: StoreError) throws {
        let ids = error.objectIDs
        switch mergePolicy {
        case .error:
            var error = error
            error.mergeConflicts = try ids.compactMap(mergeConflict(for:))
            throw error
        case .rollback:
            for id in ids { rollBackConflict(id) }
        case .overwrite:
            for id in ids { try keepConflict(id, merging: nil) }
        case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
            for id in ids { try keepConflict(id, merging: mergePolicy) }
        }
    }

    /// The conflict of one object, as ``MergePolicy/error`` reports it.
    private func mergeConflict(for id: ManagedObjectID) throws -> MergeConflict? {
        guard let object = registered[id] else { return nil }
        let record = try persistentStoreCoordinator.record(for: id)
        let persisted = record.map { record in
            let keys = Set(conflictKeys(of: object))
            return record.values.filter { keys.contains($0.key) }
        }
        return MergeConflict(
            sourceObjectID: id,
            objectSnapshot: object.isDeletedFlag ? [:] : conflictSnapshot(of: object, values: object.slots),
            cachedSnapshot: conflictSnapshot(of: object, values: object.snapshot ?? object.slots),
            persistedSnapshot: persisted, newVersionNumber: Int(record?.version ?? 0),
            oldVersionNumber: Int(object.version))
    }

    /// The names of the properties a conflict's snapshots hold: stored attributes and to-one relationships.
    private func conflictKeys(of object: ManagedObject) -> [String] {
        let layout = object.slotLayout
        return layout.recordSlots.filter {
            if case .toMany = layout.kinds[$0] { false } else { true }
        }.map { layout.properties[$0].name }
    }

    /// Slot values as a conflict's snapshot: stored attributes, and to-one relationships as object IDs.
    private func conflictSnapshot(of object: ManagedObject, values: [Any?]) -> [String: any Sendable] {
        let layout = object.slotLayout
        var snapshot: [String: any Sendable] = [:]
        for index in layout.recordSlots {
            let name = layout.properties[index].name
            switch layout.kinds[index] {
            case .toOne: snapshot[name] = (values[index] as? ManagedObject)?.objectID
            case .attribute: snapshot[name] = values[index].map(assumeSendable)
            case .toMany, .other: continue
            }
        }
        return snapshot
    }

    /// ``MergePolicy/rollback``: the object drops its unsaved changes; one deleted in its store leaves the context.
    private func rollBackConflict(_ id: ManagedObjectID) {
        guard let object = registered[id] else { return }
        refresh(object, mergeChanges: false)
        if (try? persistentStoreCoordinator.record(for: id)) == nil {
            forget(object)
            object.storage = .invalid
        }
    }

    /// The policies that keep the context's object: its version becomes the store's, and with a by-property
    /// `policy` the store's changes are merged into it first. An object deleted in its store is inserted again
    /// (``MergePolicy/overwrite``, ``MergePolicy/mergeByPropertyObjectTrump``) or leaves the context.
    private func keepConflict(_ id: ManagedObjectID, merging policy: MergePolicy?) throws {
        guard let object = registered[id] else { return }
        guard let record = try persistentStoreCoordinator.record(for: id) else {
            if object.isDeletedFlag {
                forget(object)
                object.isDeletedFlag = false
                object.managedObjectContext = nil
            } else if policy == .mergeByPropertyStoreTrump {
                forget(object)
                object.storage = .invalid
                object.snapshot = nil
                pending.invalidated.add(object)
            } else {
                changed.remove(object)
                object.isInsertedFlag = true
                object.snapshot = nil
                inserted.add(object)
            }
            return
        }
        if let policy, !object.isDeletedFlag {
            merge(record, into: object, storeTrumps: policy == .mergeByPropertyStoreTrump)
        }
        object.version = record.version
    }

    /// Merges the store's version of an object into the context's, property by property: a property the store
    /// changed (since the context read it) and the context did not takes the store's value; one both changed takes
    /// the store's value when `storeTrumps`. The store's values become the object's committed values, so that what
    /// the context changed stays an unsaved change.
    private func merge(_ record: StoreRecord, into object: ManagedObject, storeTrumps: Bool) {
        let layout = object.slotLayout
        let cached = object.snapshot ?? object.slots
        var committed = cached
        for index in layout.recordSlots {
            let stored = storedSlotValue(record[layout.properties[index].name], kind: layout.kinds[index])
            let ordered = (layout.properties[index] as? RelationshipDescription)?.isOrdered ?? true
            let storeChanged = !Self.sameValue(stored, cached[index], ordered: ordered)
            let contextChanged = !Self.sameValue(object.slots[index], cached[index], ordered: ordered)
            committed[index] = stored
            if storeChanged, storeTrumps || !contextChanged {
                object.slots[index] = (stored as? ToManyStorage)?.copy() ?? stored
            }
        }
        object.snapshot = committed
        object.touchEverySlot()
        object.fetchedPropertyCache.removeAll()
        pending.refreshed.add(object)
    }

    /// A record's value as a slot holds it: related objects of this context for relationships.
    private func storedSlotValue(_ value: (any Sendable)?, kind: EntityDescription.Layout.SlotKind) -> Any? {
        switch kind {
        case .toOne: (value as? ManagedObjectID).map { object(with: $0) }
        case .toMany: ToManyStorage((value as? [ManagedObjectID] ?? []).map { object(with: $0) })
        case .attribute, .other: value
        }
    }

    /// Whether two slot values are equal; to-many relationships compare their members (and their order when
    /// `ordered`).
    static func sameValue(_ lhs: Any?, _ rhs: Any?, ordered: Bool) -> Bool {
        if !ordered, let lhs = lhs as? ToManyStorage, let rhs = rhs as? ToManyStorage {
            return lhs.count == rhs.count && lhs.objects.allSatisfy(rhs.contains)
        }
        return ManagedObject.slotValuesEqual(lhs, rhs)
    }
}
