import Foundation

extension ManagedObjectContext {
    /// The objects matching a request, sorted, with offset and limit applied to the union of every store.
    ///
    /// Unsaved changes take part unless ``FetchRequest/includesPendingChanges`` is false: matching inserted objects
    /// are included, deleted ones excluded, and changed ones judged by their current values.
    /// - Throws: ``ModelError/Code/unknownEntity`` for an unknown entity; the predicate's errors (an unbound
    ///   variable, an unknown key); store errors; ``StoreError/Code/invalidFetchRequest`` when the request's
    ///   ``FetchRequest/resultType`` is not ``FetchRequestResultType/managedObject`` (use
    ///   ``execute(_:)-(FetchRequest)``, ``fetchObjectIDs(_:)``, ``fetchDictionaries(_:)`` or ``count(for:)``).
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        guard request.resultType == .managedObject else {
            let message =
                "fetch(_:) returns managed objects, but the request's resultType is \(request.resultType); use "
                + "execute(_:) or the matching call (fetchObjectIDs, fetchDictionaries, count(for:))."
            let context = ErrorContext(entityName: request.entityName)
            throw StoreError(code: .invalidFetchRequest, message: message, context: context)
        }
        let objects = try fetchObjects(request)
        if !request.relationshipKeyPathsForPrefetching.isEmpty, request.fetchBatchSize <= 0 {
            try prefetch(request.relationshipKeyPathsForPrefetching, from: objects)
        }
        return objects
    }

    /// The objects of ``fetch(_:)-(FetchRequest)``, whatever the request's result type.
    func fetchObjects(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try entity(named: request.entityName)
        checkStores()
        processPendingChanges()
        let names = request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]
        if parent != nil { return try fetchThroughParent(request, names: Set(names)) }
        let propertiesToFetch = request.propertyNamesToFetch
        guard request.includesPendingChanges, hasPendingChanges else {
            // Read before the fetch: a save committing meanwhile makes the values read count as older than they are.
            let generation = persistentStoreCoordinator.contentGeneration
            let withValues = propertiesToFetch == nil && request.includesPropertyValues
            let results = try persistentStoreCoordinator.fetch(
                entity: entity, entityNames: names, predicate: request.predicate, sortKeys: request.sortKeys,
                offset: request.fetchOffset, limit: request.fetchLimit, affectedStores: request.affectedStores,
                includesValues: withValues && request.fetchBatchSize <= 0,
                propertiesToFetch: propertiesToFetch, makesObjects: true)
            // Like Core Data's row cache, values come along with the IDs (no query per object later); unless the
            // request asks for loaded objects, the faults keep them and fill themselves when first read. A record
            // restricted to some properties must not fill an object: it stays a plain fault. With a batch size,
            // only IDs come (but from atomic stores), and the faults are filled a batch at a time.
            let asFaults = request.returnsObjectsAsFaults
            registered.reserveCapacity(registered.count + results.count)
            let refreshes = request.shouldRefreshRefetchedObjects && withValues
            var faultClass = lastFaultClass
            // A context holding no objects registers the fetch's objects (each ID once) without looking them up.
            var distinctFrom: Int? = registered.count == 0 ? 0 : nil
            let objects = results.indices.map { position in
                if refreshes, distinctFrom == nil, let loaded = registered[results[position].objectID],
                    isRefetchable(loaded)
                {
                    if let record = results[position].takeRecord() { refreshLoaded(loaded, from: record) }
                    return loaded
                }
                return materialize(
                    results, at: position, withValues: withValues, asFault: asFaults, generation: generation,
                    faultClass: &faultClass, distinctFrom: &distinctFrom)
            }
            lastFaultClass = faultClass
            if request.fetchBatchSize > 0 { groupFaults(objects, intoBatchesOf: request.fetchBatchSize) }
            return objects
        }
        return try fetchIncludingPendingChanges(request, entity: entity, names: Set(names))
    }

    /// The saved state of the objects matching a request, as their stores hold it, without making managed objects
    /// (Core Data's dictionary result type, with each object's ID kept).
    ///
    /// Each record holds the object's persistent values (the request's ``FetchRequest/propertiesToFetch`` when set):
    /// attributes by name, to-one relationships as ``ManagedObjectID``, to-many as `[ManagedObjectID]`. Sorting,
    /// offset and limit apply as in ``fetch(_:)-(FetchRequest)``. Like Core Data's dictionary results, unsaved changes of the
    /// context do not take part: this reads what the stores hold (in a child context, what its parent holds, the
    /// parent's unsaved changes included). Read-only callers that only encode values (the
    /// daemon's wire replies, exports) save the cost of registering objects in the context.
    /// - Throws: as ``fetch(_:)-(FetchRequest)``.
    public func fetchRecords(_ request: FetchRequest) throws -> [StoreRecord] {
        let entity = try entity(named: request.entityName)
        checkStores()
        if let parent { return try parent.currentRecords(request) }
        let names = request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]
        let results = try persistentStoreCoordinator.fetch(
            entity: entity, entityNames: names, predicate: request.predicate, sortKeys: request.sortKeys,
            offset: request.fetchOffset, limit: request.fetchLimit, affectedStores: request.affectedStores,
            includesValues: true, propertiesToFetch: request.propertyNamesToFetch)
        return try records(of: results)
    }

    /// The record of each merged result: the one it carries, else its store's (an empty one if it has gone).
    private func records(of results: [MergedFetchResult]) throws -> [StoreRecord] {
        try results.map { merged in
            if let record = merged.takeRecord() { return record }
            return try persistentStoreCoordinator.record(for: merged.objectID) ?? StoreRecord(objectID: merged.objectID)
        }
    }

    /// ``fetchRecords(_:)`` and how many objects the request matches without its offset and limit, from one
    /// reading of the stores: what a paged reply's total needs. Stores that keep sorted orders count by walking on
    /// past the page rather than counting anew; the others count when they returned a full page.
    ///
    /// As in ``fetchRecords(_:)``, unsaved changes of the context do not take part (in a child context, its
    /// parent's do: the total is then the number of the parent's records that match).
    /// - Throws: as ``fetch(_:)-(FetchRequest)``.
    package func fetchRecordsWithTotal(_ request: FetchRequest) throws -> (records: [StoreRecord], total: Int) {
        let entity = try entity(named: request.entityName)
        checkStores()
        if let parent {
            return (try parent.currentRecords(request), try parent.currentRecords(request.objectRequest()).count)
        }
        let names = request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]
        let (results, total) = try persistentStoreCoordinator.fetchWithTotal(
            entity: entity, entityNames: names, predicate: request.predicate, sortKeys: request.sortKeys,
            offset: request.fetchOffset, limit: request.fetchLimit, affectedStores: request.affectedStores,
            includesValues: true, propertiesToFetch: request.propertyNamesToFetch)
        return (try records(of: results), total)
    }

    /// A child's ``fetchRecords(_:)``: what its parent holds (the parent's unsaved changes included, and its
    /// parent's in turn), the child's own unsaved changes left out as a store's records leave them out.
    private func currentRecords(_ request: FetchRequest) throws -> [StoreRecord] {
        let objectRequest = request.objectRequest()
        objectRequest.sortKeys = request.sortKeys
        objectRequest.fetchOffset = request.fetchOffset
        objectRequest.fetchLimit = request.fetchLimit
        objectRequest.includesPendingChanges = true
        let keys = request.propertyNamesToFetch.map(Set.init)
        return try fetchObjects(objectRequest).map { object in
            let record = currentRecord(of: object)
            guard let keys else { return record }
            let values = record.values.filter { keys.contains($0.key) }
            return StoreRecord(objectID: record.objectID, version: record.version, values: values)
        }
    }

    /// The saved record of one object, as its store holds it, without making a managed object; `nil` when no
    /// attached store holds it. Unsaved changes of the context do not take part (see ``fetchRecords(_:)``).
    public func storedRecord(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try persistentStoreCoordinator.record(for: objectID)
    }

    /// The IDs of the objects matching a request, whatever its ``FetchRequest/resultType``.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ManagedObjectID] {
        try fetchObjects(request).map(\.objectID)
    }

    /// Inserts many objects straight into a store through the coordinator (see
    /// `PersistentStoreCoordinator/execute(_:)`).
    ///
    /// As in Core Data, the context is not changed: the new objects are not registered, and its own unsaved
    /// changes stay unsaved. Fetch to see the new objects. The context's ``mergePolicy`` decides what objects that
    /// break a uniqueness constraint do.
    public func execute(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        try persistentStoreCoordinator.execute(request, mergePolicy: mergePolicy)
    }

    /// Deletes objects through a context of the coordinator's own, in one save (see
    /// ``PersistentStoreCoordinator/execute(_:mergePolicy:)-(BatchDeleteRequest,_)``), with this context's merge
    /// policy. As in Core Data, this context is not changed: objects it holds that were deleted fail when they
    /// fire; refresh or fetch them again.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        try persistentStoreCoordinator.execute(request, mergePolicy: mergePolicy)
    }

    /// Updates objects through a context of the coordinator's own, in one save (see
    /// ``PersistentStoreCoordinator/execute(_:mergePolicy:)-(BatchUpdateRequest,_)``), with this context's merge
    /// policy. As in Core Data, this context is not changed: refresh its objects to see the new values.
    public func execute(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        try persistentStoreCoordinator.execute(request, mergePolicy: mergePolicy)
    }

    /// How many objects a request would return (its offset and limit applied), whatever its
    /// ``FetchRequest/resultType``.
    public func count(for request: FetchRequest) throws -> Int {
        let entity = try entity(named: request.entityName)
        checkStores()
        processPendingChanges()
        guard parent != nil || (request.includesPendingChanges && hasPendingChanges) else {
            let names = request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]
            let total = try persistentStoreCoordinator.count(entity: entity, entityNames: names,
                                                             predicate: request.predicate,
                                                             affectedStores: request.affectedStores)
            let afterOffset = max(0, total - request.fetchOffset)
            return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
        }
        return try fetchObjects(request).count
    }

    /// Whether a fetch with ``FetchRequest/shouldRefreshRefetchedObjects`` puts the values it read in this object:
    /// loaded, saved and not deleted.
    func isRefetchable(_ object: ManagedObject) -> Bool {
        object.storage == .loaded && !object.isInsertedFlag && !object.isDeletedFlag
    }

    var hasPendingChanges: Bool { !inserted.isEmpty || !deleted.isEmpty || !changed.isEmpty }

    func entity(named name: String) throws -> EntityDescription {
        guard let entity = managedObjectModel.entitiesByName[name] else {
            throw ModelError(code: .unknownEntity, message: "The model has no entity named '\(name)'.",
                             context: ErrorContext(entityName: name))
        }
        return entity
    }

    private func fetchIncludingPendingChanges(_ request: FetchRequest, entity: EntityDescription,
                                              names: Set<String>) throws -> [ManagedObject] {
        let stored = try persistentStoreCoordinator.fetch(
            entity: entity, entityNames: Array(names), predicate: request.predicate, sortKeys: [], offset: 0, limit: 0,
            affectedStores: request.affectedStores, includesValues: true)
        var seen: Set<ObjectIdentifier> = []
        var candidates: [ManagedObject] = []
        for result in stored {
            let object: ManagedObject
            if request.shouldRefreshRefetchedObjects, let loaded = registered[result.objectID], isRefetchable(loaded),
                let record = result.record
            {
                refreshLoaded(loaded, from: record)
                object = loaded
            } else {
                object = materialize(result.objectID, record: result.record)
            }
            guard !object.isDeletedFlag, seen.insert(ObjectIdentifier(object)).inserted else { continue }
            if changed.contains(object), let predicate = request.predicate, try !predicate.evaluate(with: object) {
                continue
            }
            candidates.append(object)
        }
        let affected = request.affectedStores.map { Set($0.map(\.identifier)) }
        func isAffected(_ object: ManagedObject) -> Bool {
            guard let affected else { return true }
            if let store = object.objectID.storeIdentifier { return affected.contains(store) }
            if let assigned = assignedStores[ObjectIdentifier(object)] { return affected.contains(assigned.identifier) }
            return true
        }
        let extra = changed.objects.filter { !seen.contains(ObjectIdentifier($0)) && !$0.isDeletedFlag }
            + inserted.objects.filter { !$0.isDeletedFlag }
        for object in extra where names.contains(object.entity.name) && isAffected(object) {
            if let predicate = request.predicate, try !predicate.evaluate(with: object) { continue }
            if seen.insert(ObjectIdentifier(object)).inserted { candidates.append(object) }
        }
        var sorted = try sortInMemory(candidates, by: request.sortKeys)
        if request.fetchOffset > 0 { sorted.removeFirst(min(request.fetchOffset, sorted.count)) }
        if request.fetchLimit > 0, sorted.count > request.fetchLimit { sorted.removeSubrange(request.fetchLimit...) }
        return sorted
    }

    /// Sorts objects by keys, ties broken by store add order and then object ID (new objects last).
    func sortInMemory(_ objects: [ManagedObject], by keys: [SortKey]) throws -> [ManagedObject] {
        var indexByStore: [String: Int] = [:]
        for (index, store) in persistentStoreCoordinator.persistentStores.enumerated() {
            indexByStore[store.identifier] = index
        }
        // Equal sort values keep the coordinator's order: store order, saved objects before new ones, then IDs. The
        // objects are put in that order first, and the stable sort by the keys keeps it among equals.
        let tieOrdered = objects.map { object in
            (object: object, store: object.objectID.storeIdentifier.flatMap { indexByStore[$0] } ?? Int.max)
        }.sorted { lhs, rhs in
            if lhs.store != rhs.store { return lhs.store < rhs.store }
            let (left, right) = (lhs.object.objectID, rhs.object.objectID)
            if left.isTemporaryID != right.isTemporaryID { return !left.isTemporaryID }
            return left < right
        }.map(\.object)
        // Each value is read and prepared once (SortKey.compare prepares both values per comparison: a fetch of 100k
        // objects with one unsaved change took seconds).
        return try SortKey.sort(tieOrdered, by: keys)
    }
}
