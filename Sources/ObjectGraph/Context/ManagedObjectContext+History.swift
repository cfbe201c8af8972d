import Foundation

extension ManagedObjectContext {
    /// Fetches persistent history (Core Data's `execute(_:)` of an `NSPersistentHistoryChangeRequest`, returning
    /// its transactions).
    ///
    /// - Throws: the errors of `PersistentStoreCoordinator.fetchHistory(_:)`:
    ///   ``StoreError/Code/persistentHistoryNotTracked``, ``StoreError/Code/persistentHistoryTokenExpired``,
    ///   ``StoreError/Code/invalidFetchRequest`` for a delete request.
    public func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> [PersistentHistoryTransaction] {
        try persistentStoreCoordinator.fetchHistory(request)
    }

    /// Runs a history fetch or delete; see ``PersistentStoreCoordinator/execute(_:)-(PersistentHistoryChangeRequest)``.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try persistentStoreCoordinator.execute(request)
    }

    /// Brings the changes of history transactions into the context, as
    /// ``mergeChanges(fromContextDidSave:)`` brings a save's: updated objects are refreshed (keeping this context's
    /// own unsaved changes on top), deleted objects leave it, and one objects-did-change event reports both.
    public func mergeChanges(fromHistory transactions: [PersistentHistoryTransaction]) {
        var event = ContextDidSave()
        for transaction in transactions {
            let changes = transaction.objectIDNotification()
            event.insertedObjectIDs.formUnion(changes.insertedObjectIDs)
            event.updatedObjectIDs.formUnion(changes.updatedObjectIDs)
            event.deletedObjectIDs.formUnion(changes.deletedObjectIDs)
        }
        event.updatedObjectIDs.subtract(event.deletedObjectIDs)
        mergeChanges(fromContextDidSave: event)
    }

    /// The save plan's changes, with what persistent history records for the stores that track it: the author,
    /// the context's name, the changed properties of updated objects and the tombstones of deleted ones.
    func recordingHistory(of plan: SavePlan) -> [(PersistentStore, StoreChanges)] {
        guard plan.changes.contains(where: { $0.0.isTrackingPersistentHistory }) else { return plan.changes }
        let timestamp = Date()
        return plan.changes.map { store, changes in
            guard store.isTrackingPersistentHistory else { return (store, changes) }
            var recording = PersistentHistoryRecording(
                timestamp: timestamp, author: transactionAuthor,
                contextName: name)
            for (position, object) in plan.updatedObjects.enumerated()
            where object.objectID.storeIdentifier == store.identifier {
                // The plan's changed keys when it has them; comparing values with snapshots again is not free.
                let changed = plan.updatedKeys?[position] ?? Set(object.changedValues().keys)
                recording.updatedProperties[object.objectID] = Self.savedPropertyNames(changed, of: object)
            }
            for object in plan.deletedObjects where object.objectID.storeIdentifier == store.identifier {
                let preserved = object.entity.layout.properties.compactMap { property -> (String, any Sendable)? in
                    guard let attribute = property as? AttributeDescription,
                        attribute.preservesValueInHistoryOnDeletion,
                        let value = object.value(forKey: attribute.name)
                    else { return nil }
                    return (attribute.name, assumeSendable(value))
                }
                if !preserved.isEmpty {
                    recording.tombstones[object.objectID] = Dictionary(
                        preserved, uniquingKeysWith: { first, _ in first })
                }
            }
            var changes = changes
            changes.history = recording
            return (store, changes)
        }
    }

    /// The names among `keys` of properties a store saves (not transient ones).
    private static func savedPropertyNames(_ keys: Set<String>, of object: ManagedObject) -> Set<String> {
        let properties = object.entity.layout.propertiesByName
        return keys.filter { key in
            guard let property = properties[key] else { return false }
            return !property.isTransient && !(property is FetchedPropertyDescription)
        }
    }
}
