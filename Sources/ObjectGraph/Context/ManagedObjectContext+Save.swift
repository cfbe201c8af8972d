import Foundation

extension ManagedObjectContext {
    /// Validates and writes every change to the stores.
    ///
    /// Every inserted, updated and deleted object is validated first, and all failures are reported at once in one
    /// ``ValidationError`` (``ValidationError/Code/multipleErrors`` when there are several); new objects are routed
    /// to stores (the assigned store, else the only writable store whose configuration holds the entity, else the
    /// first of several unless the coordinator routes strictly). On any failure nothing is written and the context
    /// keeps its changes. The undo stack is kept (see ``canUndo``). The context's ``mergePolicy`` resolves
    /// conflicts with the stores. A child context (``init(parent:)``) validates the same way and then pushes its
    /// changes into its parent instead (see <doc:NestedContexts>).
    ///
    /// - Throws: ``ValidationError``; ``StoreError`` with ``StoreError/Code/noStoreForEntity``,
    ///   ``StoreError/Code/ambiguousStore``, ``StoreError/Code/readOnlyStore``, ``StoreError/Code/mergeConflict`` or
    ///   ``StoreError/Code/constraintConflict`` (with the default merge policy), ``StoreError/Code/objectNotFound``
    ///   (a child whose objects its parent deleted) or a store's own error.
    public func save() throws {
        checkStores()
        processPendingChanges()
        guard hasChanges else {
            changed.removeAll()
            return
        }
        post(.willSave)
        // Which objects changed and which of their properties: willSave(), derived attributes, validation, the
        // push into a parent and the first save plan all need them. They are found once, and again only when
        // willSave() or a derived attribute changed something (comparing values with snapshots is a save's
        // largest per-object cost).
        var updates = updatedObjectsAndSlots()
        var generation = changeGeneration
        func findUpdatesAgainIfChanged() {
            guard changeGeneration != generation else { return }
            updates = updatedObjectsAndSlots()
            generation = changeGeneration
        }
        for object in inserted.objects + updates.objects + deleted.objects {
            object.willSave()
        }
        processPendingChanges()
        findUpdatesAgainIfChanged()
        recomputeDerivedAttributes(updated: updates.objects)
        findUpdatesAgainIfChanged()
        assert(updates.isSame(as: updatedObjectsAndSlots()), "a change to a saved object did not move changeGeneration")
        try validateChanges(updated: updates.objects)
        if let parent {
            try push(into: parent, updates: updates)
            return
        }
        var attempts = 0
        while true {
            attempts += 1
            // A resolved merge conflict changed objects: the next plan looks at them again, and writes every value
            // of them (the policy decided what the store holds; it is not only what the context changed).
            let plan = try makeSavePlan(updated: attempts == 1 ? updates : nil)
            do {
                try persistentStoreCoordinator.save(recordingHistory(of: plan))
                finishSave(plan)
                return
            } catch let error as StoreError where error.code == .mergeConflict && attempts < 3 {
                try resolveMergeConflicts(error)
            } catch var error as StoreError where error.code == .constraintConflict {
                guard mergePolicy != .error, attempts < 3,
                      try resolveConstraintConflicts(error.constraintConflicts, plan: plan) else {
                    // Name new objects by the IDs they have, not by the permanent IDs the failed save gave them.
                    let current = Dictionary(zip(plan.insertedIDs, plan.insertedObjects.map(\.objectID)),
                                             uniquingKeysWith: { first, _ in first })
                    error.objectIDs = error.objectIDs.map { current[$0] ?? $0 }
                    for index in error.constraintConflicts.indices {
                        error.constraintConflicts[index].conflictingObjectIDs =
                            error.constraintConflicts[index].conflictingObjectIDs.map { current[$0] ?? $0 }
                    }
                    throw error
                }
            }
        }
    }

    /// Gives new objects permanent IDs now (routing them to their stores), without saving them.
    ///
    /// In a child context, objects inserted in it or pushed into it by a save take part; the new IDs reach the
    /// context's ancestors and descendants too.
    ///
    /// - Throws: the routing errors of ``save()``.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        var renamed: [(ManagedObjectID, ManagedObjectID)] = []
        for object in objects where object.objectID.isTemporaryID && !object.isDeletedFlag {
            guard object.managedObjectContext === self else { continue }
            let store = try persistentStoreCoordinator.storeForNewObject(
                of: object.entity, assigned: assignedStores[ObjectIdentifier(object)])
            let id = try persistentStoreCoordinator.newObjectIDs(entityName: object.entity.name, in: store, count: 1)[0]
            renamed.append((object.objectID, id))
        }
        if !renamed.isEmpty { root.adoptPermanentIDs(renamed) }
    }

    /// The saved objects with unsaved changes (``ManagedObject/isUpdated``), each with the slots that changed.
    struct Updates {
        private(set) var objects: [ManagedObject] = []
        /// The changed slots of every object, one object's after another's (an array per object was a tenth of a
        /// child context's save): those of `objects[i]` end at `ends[i]`.
        private var changedSlots: [Int] = []
        private var ends: [Int] = []

        /// The changed slots of `objects[position]`, in ascending order.
        func slots(at position: Int) -> ArraySlice<Int> {
            changedSlots[(position == 0 ? 0 : ends[position - 1])..<ends[position]]
        }

        /// Lists `object` with its changed slots, unless it has none.
        mutating func addIfChanged(_ object: ManagedObject) {
            let start = changedSlots.count
            object.appendChangedSlots(to: &changedSlots)
            guard changedSlots.count > start else { return }
            objects.append(object)
            ends.append(changedSlots.count)
        }

        /// Whether both list the same objects with the same slots.
        func isSame(as other: Updates) -> Bool {
            objects.elementsEqual(other.objects, by: ===) && changedSlots == other.changedSlots && ends == other.ends
        }
    }

    /// The objects ``updatedObjects`` holds, in the order they changed, with their changed slots.
    func updatedObjectsAndSlots() -> Updates {
        var updates = Updates()
        changed.forEachObject { object in
            if !object.isInsertedFlag && !object.isDeletedFlag { updates.addIfChanged(object) }
        }
        return updates
    }

    // MARK: Validation

    private func validateChanges(updated: [ManagedObject]) throws {
        var errors: [ValidationError] = []
        func collect(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as ValidationError {
                errors += error.allErrors
            } catch {
                errors.append(ValidationError(code: .custom, message: "\(error)"))
            }
        }
        for object in inserted.objects where !object.isDeletedFlag { collect(object.validateForInsert) }
        for object in updated { collect(object.validateForUpdate) }
        for object in deleted.objects { collect(object.validateForDelete) }
        if let error = ValidationError.combining(errors) { throw error }
    }

    // MARK: Planning

    struct SavePlan {
        var changes: [(PersistentStore, StoreChanges)]
        /// The objects to insert, and the permanent ID each one gets, by position.
        var insertedObjects: [ManagedObject]
        var insertedIDs: [ManagedObjectID]
        var updatedObjects: [ManagedObject]
        /// The names of each updated object's changed properties, by position (also each record's
        /// `changedKeys`), when the plan had them: the first plan of a save has, one after a merge conflict not.
        var updatedKeys: [Set<String>]?
        var deletedObjects: [ManagedObject]
    }

    /// The changes per store, in the order they were first needed; a save usually touches one or two stores, so a
    /// short list searched from the last hit beats hashing each object's store identifier.
    private struct StoreBuckets {
        var entries: [(store: PersistentStore, changes: StoreChanges)] = []
        private var last = 0

        mutating func index(of store: PersistentStore) -> Int {
            if last < entries.count, entries[last].store === store { return last }
            if let found = entries.firstIndex(where: { $0.store === store }) {
                last = found
            } else {
                entries.append((store, StoreChanges()))
                last = entries.count - 1
            }
            return last
        }
    }

    /// The changes to write, store by store; `updated` is the list of updated objects when the caller has it.
    private func makeSavePlan(updated: Updates?) throws -> SavePlan {
        let coordinator = persistentStoreCoordinator
        var newObjects = inserted.objects
        if newObjects.contains(where: \.isDeletedFlag) { newObjects.removeAll(where: \.isDeletedFlag) }

        // Route each new object to its store, kept as a position in a short list of the stores used: objects go
        // by position from here on, so that going through them retains neither them nor their stores. Objects of
        // one entity without an assigned store all go where the first one went, so routing runs once per entity.
        var stores: [PersistentStore] = []
        func position(of store: PersistentStore) -> Int {
            if let known = stores.firstIndex(where: { $0 === store }) { return known }
            stores.append(store)
            return stores.count - 1
        }
        var targets = [Int](repeating: 0, count: newObjects.count)
        var routed: [ObjectIdentifier: Int] = [:]
        var lastRouted: (entity: ObjectIdentifier, store: Int)?
        for index in newObjects.indices {
            let object = newObjects[index]
            if !object.objectID.isTemporaryID {
                guard let store = coordinator.persistentStore(of: object.objectID) else {
                    throw StoreError(code: .storeNotFound, message: "The store this object was assigned to was removed.",
                                     context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
                }
                targets[index] = position(of: store)
                continue
            }
            let entity = ObjectIdentifier(object.entity)
            if let assigned = assignedStores.isEmpty ? nil : assignedStores[ObjectIdentifier(object)] {
                targets[index] = position(of: try coordinator.storeForNewObject(of: object.entity, assigned: assigned))
            } else if let lastRouted, lastRouted.entity == entity {
                targets[index] = lastRouted.store
            } else {
                let store = try routed[entity]
                    ?? position(of: coordinator.storeForNewObject(of: object.entity, assigned: nil))
                routed[entity] = store
                lastRouted = (entity, store)
                targets[index] = store
            }
        }

        // Permanent IDs, asked for once per store and entity.
        struct GroupKey: Hashable { let store: Int, entity: ObjectIdentifier }
        var groupOf = [Int](repeating: -1, count: newObjects.count)
        var groups: [(store: Int, entityName: String, count: Int)] = []
        var groupIndex: [GroupKey: Int] = [:]
        var lastGroup: (key: GroupKey, index: Int)?
        for index in newObjects.indices where newObjects[index].objectID.isTemporaryID {
            let key = GroupKey(store: targets[index], entity: ObjectIdentifier(newObjects[index].entity))
            let group: Int
            if let lastGroup, lastGroup.key == key {
                group = lastGroup.index
            } else if let known = groupIndex[key] {
                group = known
            } else {
                group = groups.count
                groups.append((key.store, newObjects[index].entity.name, 0))
                groupIndex[key] = group
            }
            lastGroup = (key, group)
            groups[group].count += 1
            groupOf[index] = group
        }
        var groupIDs = try groups.map {
            try coordinator.newObjectIDs(entityName: $0.entityName, in: stores[$0.store], count: $0.count)
        }
        var taken = [Int](repeating: 0, count: groups.count)
        var newIDs: [ManagedObjectID] = []
        newIDs.reserveCapacity(newObjects.count)
        for index in newObjects.indices {
            let group = groupOf[index]
            guard group >= 0 else {
                newIDs.append(newObjects[index].objectID)
                continue
            }
            newIDs.append(groupIDs[group][taken[group]])
            taken[group] += 1
        }
        groupIDs.removeAll()

        // Relationships name their destinations by the IDs they will have after the save.
        var newIDOf: [ObjectIdentifier: ManagedObjectID] = [:]
        if managedObjectModel.objectsReferToObjects {
            newIDOf.reserveCapacity(newObjects.count)
            for (object, id) in zip(newObjects, newIDs) { newIDOf[ObjectIdentifier(object)] = id }
        }
        func id(of object: ManagedObject) -> ManagedObjectID { newIDOf[ObjectIdentifier(object)] ?? object.objectID }

        var buckets = StoreBuckets()
        var lastStore: (identifier: String, store: PersistentStore)?
        func store(of object: ManagedObject) throws -> PersistentStore {
            if let lastStore, lastStore.identifier == object.objectID.storeIdentifier { return lastStore.store }
            guard let store = coordinator.persistentStore(of: object.objectID) else {
                throw StoreError(code: .storeNotFound, message: "The object's store was removed; it cannot be saved.",
                                 context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
            }
            lastStore = (store.identifier, store)
            return store
        }
        let bucketOfStore = stores.map { buckets.index(of: $0) }
        for index in newObjects.indices {
            let bucket = bucketOfStore[targets[index]]
            if buckets.entries[bucket].changes.inserted.isEmpty {
                buckets.entries[bucket].changes.inserted.reserveCapacity(newObjects.count - index)
            }
            let record = try makeRecord(newObjects[index], id: newIDs[index], version: 1,
                                        store: buckets.entries[bucket].store, idOf: id)
            buckets.entries[bucket].changes.inserted.append(record)
        }
        let updatedObjects = updated?.objects ?? changed.objects.filter(\.isUpdated)
        var updatedKeys: [Set<String>]? = updated == nil ? nil : []
        for (position, object) in updatedObjects.enumerated() {
            let target = try store(of: object)
            var record = try makeRecord(object, id: object.objectID, version: object.version, store: target, idOf: id)
            if let updated {
                let properties = object.slotLayout.properties
                let keys = Set(updated.slots(at: position).map { properties[$0].name })
                record.changedKeys = keys
                updatedKeys?.append(keys)
            }
            buckets.entries[buckets.index(of: target)].changes.updated.append(record)
        }
        let deletedObjects = deleted.objects
        for object in deletedObjects {
            let target = try store(of: object)
            buckets.entries[buckets.index(of: target)].changes.deleted.append((object.objectID, object.version))
        }
        let order = coordinator.persistentStores.map(\.identifier)
        let ordered = buckets.entries.sorted {
            (order.firstIndex(of: $0.store.identifier) ?? .max) < (order.firstIndex(of: $1.store.identifier) ?? .max)
        }
        return SavePlan(changes: ordered.map { ($0.store, $0.changes) }, insertedObjects: newObjects,
                        insertedIDs: newIDs, updatedObjects: updatedObjects, updatedKeys: updatedKeys,
                        deletedObjects: deletedObjects)
    }

    private func makeRecord(_ object: ManagedObject, id: ManagedObjectID, version: Int64, store: PersistentStore,
                            idOf: (ManagedObject) -> ManagedObjectID) throws -> StoreRecord {
        let layout = object.slotLayout
        if layout.recordsAreSlots {
            // The slots are the row, shared (see `sharedRow(of:)`); attribute values are Sendable (see
            // `assumeSendable`).
            return StoreRecord(objectID: id, version: version, keys: layout.recordKeys, row: sharedRow(of: object.slots))
        }
        let slots = object.slots
        let recordSlots = layout.recordSlots
        let attributeCount = layout.recordAttributeCount
        var row: [(any Sendable)?] = []
        row.reserveCapacity(recordSlots.count)
        // Attribute values are Sendable (see `assumeSendable`).
        for position in 0..<attributeCount { row.append(slots[recordSlots[position]].map(assumeSendable)) }
        for position in attributeCount..<recordSlots.count {
            let relationship = layout.properties[recordSlots[position]] as! RelationshipDescription
            let targets = object.relatedObjects(relationship).filter {
                !($0.isInsertedFlag && $0.isDeletedFlag) && $0.managedObjectContext === self
            }
            let ids = targets.map(idOf)
            if let foreign = ids.first(where: { $0.storeIdentifier != store.identifier }) {
                throw StoreError(code: .invalidObjectID,
                                 message: "Relationship '\(relationship.name)' of '\(object.entity.name)' points at an "
                                    + "object in another store; relationships cannot cross stores.",
                                 context: ErrorContext(entityName: object.entity.name, key: relationship.name,
                                                       objectID: foreign))
            }
            if relationship.isToMany {
                row.append(ids.isEmpty ? nil : ids)
            } else {
                row.append(ids.first)
            }
        }
        return StoreRecord(objectID: id, version: version, keys: layout.recordKeys, row: row)
    }

    // MARK: Finishing

    /// The end of every save, to the stores or into a parent: deleted objects leave the context, the lists of
    /// changes empty, and every saved object hears ``ManagedObject/didSave()``.
    func settleSavedChanges(
        inserted newObjects: [ManagedObject], updated: [ManagedObject], deleted deletedObjects: [ManagedObject]
    ) {
        for object in deletedObjects {
            forget(object)
            object.isDeletedFlag = false
            object.storage = .invalid
            object.managedObjectContext = nil
        }
        for object in takeDeletedWhileInserted() {
            forget(object)
            object.managedObjectContext = nil
        }
        inserted.removeAll()
        deleted.removeAll()
        changed.removeAll { $0.snapshot = nil }
        assignedStores.removeAll()
        pending = PendingNotification()
        for objects in [newObjects, updated, deletedObjects] {
            for object in objects { object.didSave() }
        }
    }

    private func finishSave(_ plan: SavePlan) {
        // Unregistered first, registered again after: in one loop the registry would switch between the tables of
        // temporary and permanent IDs at every object.
        let renamed = childLinks.isEmpty ? [] : renames(of: plan.insertedObjects, to: plan.insertedIDs)
        for object in plan.insertedObjects { registered[object.objectID] = nil }
        for (object, newID) in zip(plan.insertedObjects, plan.insertedIDs) {
            object.objectID = newID
            registered[newID] = object
            object.isInsertedFlag = false
            object.version = 1
            object.snapshot = nil
        }
        if !renamed.isEmpty { adoptPermanentIDsInChildren(renamed) }
        for object in plan.updatedObjects {
            object.version += 1
            object.snapshot = nil
        }
        settleSavedChanges(
            inserted: plan.insertedObjects, updated: plan.updatedObjects, deleted: plan.deletedObjects)
        // The event's sets of IDs are built only when someone listens: hashing every ID of a large save was a
        // tenth of finishing it.
        let coordinator = persistentStoreCoordinator
        let mergingChildren = hasMergingChildren
        guard !observers.isEmpty || coordinator.hasSaveObservers || mergingChildren else { return }
        var event = ContextDidSave(contextIdentifier: ObjectIdentifier(self))
        event.insertedObjectIDs = Set(plan.insertedIDs)
        event.updatedObjectIDs = Set(plan.updatedObjects.map(\.objectID))
        event.deletedObjectIDs = Set(plan.deletedObjects.map(\.objectID))
        post(.didSave(event))
        coordinator.notifySaved(event)
        if mergingChildren { mergeIntoChildren(event) }
    }

    // MARK: Uniqueness constraint conflicts

    /// Resolves conflicts of new objects with each other or with saved objects by the merge policy, as Core Data's
    /// by-property merge policies do: one object survives (the saved one, else the first new one) and takes the
    /// others' relationships, and with ``MergePolicy/mergeByPropertyObjectTrump`` and ``MergePolicy/overwrite``
    /// their attribute values too (the last one's win); the others are deleted. Returns `false`, changing nothing,
    /// when a conflict involves a saved object the save changes: the save then fails.
    private func resolveConstraintConflicts(_ conflicts: [ConstraintConflict], plan: SavePlan) throws -> Bool {
        let newObjects = Dictionary(zip(plan.insertedIDs, plan.insertedObjects), uniquingKeysWith: { first, _ in first })
        guard !conflicts.isEmpty,
              conflicts.allSatisfy({ $0.conflictingObjectIDs.allSatisfy { newObjects[$0] != nil } }) else {
            return false
        }
        for conflict in conflicts {
            var duplicates = conflict.conflictingObjectIDs.map { newObjects[$0]! }
            let survivor = try conflict.databaseObjectID.map(existingObject(with:)) ?? duplicates.removeFirst()
            for duplicate in duplicates where !duplicate.isDeletedFlag {
                merge(duplicate, into: survivor, valuesWin: mergePolicy.keepsInMemoryValues)
                delete(duplicate)
            }
        }
        return true
    }

    /// Moves a duplicate's relationships (and, when `valuesWin`, its stored attribute values) onto the object that
    /// survives a constraint conflict, leaving the duplicate without related objects.
    private func merge(_ duplicate: ManagedObject, into survivor: ManagedObject, valuesWin: Bool) {
        let properties = survivor.entity.layout.propertiesByName
        for property in duplicate.entity.layout.properties {
            switch (property, properties[property.name]) {
            case let (attribute as AttributeDescription, _ as AttributeDescription):
                if valuesWin, !attribute.isTransient {
                    survivor.setValue(duplicate.value(forKey: attribute.name), forKey: attribute.name)
                }
            case let (relationship as RelationshipDescription, target as RelationshipDescription)
                where relationship.isToMany == target.isToMany:
                let related = duplicate.relatedObjects(relationship)
                if related.isEmpty { continue }
                let kept = survivor.relatedObjects(target)
                duplicate.setValue(nil, forKey: relationship.name)
                if relationship.isToMany {
                    let known = Set(kept.map(ObjectIdentifier.init))
                    survivor.setValue(kept + related.filter { !known.contains(ObjectIdentifier($0)) },
                                      forKey: target.name)
                } else if valuesWin || kept.isEmpty {
                    survivor.setValue(related[0], forKey: target.name)
                }
            default:
                break
            }
        }
    }
}
