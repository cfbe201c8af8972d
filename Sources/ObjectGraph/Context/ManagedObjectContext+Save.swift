import Foundation

extension ManagedObjectContext {
    /// Validates and writes every change to the stores.
    ///
    /// Every inserted, updated and deleted object is validated first, and all failures are reported at once in one
    /// ``ValidationError`` (``ValidationError/Code/multipleErrors`` when there are several); new objects are routed
    /// to stores (the assigned store, else the only writable store whose configuration holds the entity, else the
    /// first of several unless the coordinator routes strictly). On any failure nothing is written and the context
    /// keeps its changes. A successful save empties the undo stack.
    ///
    /// - Throws: ``ValidationError``; ``StoreError`` with ``StoreError/Code/noStoreForEntity``,
    ///   ``StoreError/Code/ambiguousStore``, ``StoreError/Code/readOnlyStore``, ``StoreError/Code/mergeConflict``
    ///   (with the default merge policy) or a store's own error.
    public func save() throws {
        checkStores()
        processPendingChanges()
        guard hasChanges else {
            changed.removeAll()
            return
        }
        post(.willSave)
        for object in inserted.objects + changed.objects.filter(\.isUpdated) + deleted.objects {
            object.willSave()
        }
        processPendingChanges()
        try validateChanges()
        var attempts = 0
        while true {
            attempts += 1
            let plan = try makeSavePlan()
            do {
                try persistentStoreCoordinator.save(plan.changes)
                finishSave(plan)
                return
            } catch let error as StoreError where error.code == .mergeConflict && attempts < 3 {
                switch mergePolicy {
                case .error: throw error
                case .storeWins: resolveConflictsForStore(error.objectIDs)
                case .inMemoryWins: try resolveConflictsForContext(error.objectIDs)
                }
            }
        }
    }

    /// Gives new objects permanent IDs now (routing them to their stores), without saving them.
    ///
    /// - Throws: the routing errors of ``save()``.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        for object in objects where object.objectID.isTemporaryID && object.isInsertedFlag {
            let store = try persistentStoreCoordinator.storeForNewObject(
                of: object.entity, assigned: assignedStores[ObjectIdentifier(object)])
            let id = try persistentStoreCoordinator.newObjectIDs(entityName: object.entity.name, in: store, count: 1)[0]
            registered[object.objectID] = nil
            object.objectID = id
            registered[id] = object
        }
    }

    // MARK: Validation

    private func validateChanges() throws {
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
        for object in changed.objects where object.isUpdated { collect(object.validateForUpdate) }
        for object in deleted.objects { collect(object.validateForDelete) }
        if let error = ValidationError.combining(errors) { throw error }
    }

    // MARK: Planning

    struct SavePlan {
        var changes: [(PersistentStore, StoreChanges)]
        var newIDs: [ObjectIdentifier: ManagedObjectID]
        var insertedObjects: [ManagedObject]
        var updatedObjects: [ManagedObject]
        var deletedObjects: [ManagedObject]
    }

    private func makeSavePlan() throws -> SavePlan {
        let coordinator = persistentStoreCoordinator
        let newObjects = inserted.objects.filter { !$0.isDeletedFlag }
        var storeOf: [ObjectIdentifier: PersistentStore] = [:]
        var byStoreAndEntity: [ObjectIdentifier: (PersistentStore, [String: [ManagedObject]])] = [:]
        for object in newObjects {
            if !object.objectID.isTemporaryID {
                guard let store = coordinator.persistentStore(of: object.objectID) else {
                    throw StoreError(code: .storeNotFound, message: "The store this object was assigned to was removed.",
                                     context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
                }
                storeOf[ObjectIdentifier(object)] = store
                continue
            }
            let store = try coordinator.storeForNewObject(of: object.entity,
                                                          assigned: assignedStores[ObjectIdentifier(object)])
            storeOf[ObjectIdentifier(object)] = store
            byStoreAndEntity[ObjectIdentifier(store), default: (store, [:])].1[object.entity.name, default: []]
                .append(object)
        }
        var newIDs: [ObjectIdentifier: ManagedObjectID] = [:]
        for (store, groups) in byStoreAndEntity.values {
            for (entityName, objects) in groups {
                let ids = try coordinator.newObjectIDs(entityName: entityName, in: store, count: objects.count)
                for (object, id) in zip(objects, ids) { newIDs[ObjectIdentifier(object)] = id }
            }
        }
        func id(of object: ManagedObject) -> ManagedObjectID { newIDs[ObjectIdentifier(object)] ?? object.objectID }

        var changes: [String: (PersistentStore, StoreChanges)] = [:]
        var inserts: [String: [StoreRecord]] = [:]
        var updates: [String: [StoreRecord]] = [:]
        var deletes: [String: [(objectID: ManagedObjectID, version: Int64)]] = [:]
        func store(of object: ManagedObject) throws -> PersistentStore {
            if let store = storeOf[ObjectIdentifier(object)] { return store }
            guard let store = coordinator.persistentStore(of: object.objectID) else {
                throw StoreError(code: .storeNotFound, message: "The object's store was removed; it cannot be saved.",
                                 context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
            }
            return store
        }
        for object in newObjects {
            let target = try store(of: object)
            changes[target.identifier] = changes[target.identifier] ?? (target, StoreChanges())
            inserts[target.identifier, default: []]
                .append(try makeRecord(object, id: id(of: object), version: 1, store: target, idOf: id))
        }
        let updatedObjects = changed.objects.filter(\.isUpdated)
        for object in updatedObjects {
            let target = try store(of: object)
            changes[target.identifier] = changes[target.identifier] ?? (target, StoreChanges())
            updates[target.identifier, default: []]
                .append(try makeRecord(object, id: object.objectID, version: object.version, store: target, idOf: id))
        }
        let deletedObjects = deleted.objects
        for object in deletedObjects {
            let target = try store(of: object)
            changes[target.identifier] = changes[target.identifier] ?? (target, StoreChanges())
            deletes[target.identifier, default: []].append((object.objectID, object.version))
        }
        for identifier in changes.keys {
            changes[identifier]!.1.inserted = inserts[identifier] ?? []
            changes[identifier]!.1.updated = updates[identifier] ?? []
            changes[identifier]!.1.deleted = deletes[identifier] ?? []
        }
        let order = coordinator.persistentStores.map(\.identifier)
        let ordered = changes.values.sorted {
            (order.firstIndex(of: $0.0.identifier) ?? .max) < (order.firstIndex(of: $1.0.identifier) ?? .max)
        }
        return SavePlan(changes: ordered, newIDs: newIDs, insertedObjects: newObjects, updatedObjects: updatedObjects,
                        deletedObjects: deletedObjects)
    }

    private func makeRecord(_ object: ManagedObject, id: ManagedObjectID, version: Int64, store: PersistentStore,
                            idOf: (ManagedObject) -> ManagedObjectID) throws -> StoreRecord {
        var values: [String: any Sendable] = [:]
        for (index, property) in object.entity.layout.properties.enumerated() where !property.isTransient {
            switch property {
            case is AttributeDescription:
                if let value = object.slots[index] { values[property.name] = assumeSendable(value) }
            case let relationship as RelationshipDescription:
                let targets = object.relatedObjects(relationship).filter {
                    !($0.isInsertedFlag && $0.isDeletedFlag) && $0.managedObjectContext === self
                }
                let ids = targets.map(idOf)
                if let foreign = ids.first(where: { $0.storeIdentifier != store.identifier }) {
                    throw StoreError(code: .invalidObjectID,
                                     message: "Relationship '\(property.name)' of '\(object.entity.name)' points at an "
                                        + "object in another store; relationships cannot cross stores.",
                                     context: ErrorContext(entityName: object.entity.name, key: property.name,
                                                           objectID: foreign))
                }
                if relationship.isToMany {
                    if !ids.isEmpty { values[property.name] = ids }
                } else if let first = ids.first {
                    values[property.name] = first
                }
            default:
                continue
            }
        }
        return StoreRecord(objectID: id, version: version, values: values)
    }

    // MARK: Finishing

    private func finishSave(_ plan: SavePlan) {
        var event = ContextDidSave(contextIdentifier: ObjectIdentifier(self))
        for object in plan.insertedObjects {
            let newID = plan.newIDs[ObjectIdentifier(object)] ?? object.objectID
            registered[object.objectID] = nil
            object.objectID = newID
            registered[newID] = object
            object.isInsertedFlag = false
            object.version = 1
            object.snapshot = nil
            event.insertedObjectIDs.insert(newID)
        }
        for object in plan.updatedObjects {
            object.version += 1
            object.snapshot = nil
            event.updatedObjectIDs.insert(object.objectID)
        }
        for object in plan.deletedObjects {
            forget(object)
            object.isDeletedFlag = false
            object.storage = .invalid
            object.managedObjectContext = nil
            event.deletedObjectIDs.insert(object.objectID)
        }
        for object in registered.objects(where: { $0.isInsertedFlag && $0.isDeletedFlag }) {
            forget(object)
            object.managedObjectContext = nil
        }
        for object in changed.objects { object.snapshot = nil }
        inserted.removeAll()
        deleted.removeAll()
        changed.removeAll()
        assignedStores.removeAll()
        removeAllUndoActions()
        pending = PendingNotification()
        for object in plan.insertedObjects + plan.updatedObjects + plan.deletedObjects { object.didSave() }
        post(.didSave(event))
        persistentStoreCoordinator.notifySaved(event)
    }

    // MARK: Merge conflicts

    private func resolveConflictsForStore(_ ids: [ManagedObjectID]) {
        for id in ids {
            guard let object = registered[id] else { continue }
            refresh(object, mergeChanges: false)
            if (try? persistentStoreCoordinator.record(for: id)) == nil {
                forget(object)
                object.storage = .invalid
            }
        }
    }

    private func resolveConflictsForContext(_ ids: [ManagedObjectID]) throws {
        for id in ids {
            guard let object = registered[id] else { continue }
            if let record = try persistentStoreCoordinator.record(for: id) {
                object.version = record.version
            } else if object.isDeletedFlag {
                forget(object)
                object.managedObjectContext = nil
            } else {
                changed.remove(object)
                object.isInsertedFlag = true
                object.snapshot = nil
                inserted.add(object)
            }
        }
    }
}
