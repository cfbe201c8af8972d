import Foundation

extension ManagedObjectContext {
    /// Runs a fetch request and returns what its ``FetchRequest/resultType`` asks for: objects, object IDs,
    /// dictionaries or a count.
    /// - Throws: as ``fetch(_:)-(FetchRequest)``, ``fetchDictionaries(_:)`` and ``count(for:)``.
    public func execute(_ request: FetchRequest) throws -> FetchResult {
        switch request.resultType {
        case .managedObject: .objects(try fetch(request))
        case .managedObjectID: .objectIDs(try fetchObjectIDs(request))
        case .dictionary: .dictionaries(try fetchDictionaries(request))
        case .count: .count(try count(for: request))
        }
    }

    /// The request's results as dictionaries keyed by property name (Core Data's `NSDictionaryResultType`),
    /// whatever its ``FetchRequest/resultType``.
    ///
    /// Each dictionary holds the values of ``FetchRequest/propertiesToFetch`` (every attribute when `nil`); nil
    /// values are left out, related objects appear as their ``ManagedObjectID``s. With
    /// ``FetchRequest/propertiesToGroupBy`` or aggregates among the properties (``ExpressionDescription``), each
    /// dictionary is a group: its grouped values and aggregates, filtered by ``FetchRequest/havingPredicate``.
    /// Without grouping, aggregates cover every matching object (one dictionary). Sort keys name keys of the
    /// dictionaries for groups and distinct results, and properties of the objects otherwise; offset and limit
    /// apply last, to the union over stores.
    ///
    /// Unlike Core Data (which ignores them for dictionaries and refuses grouping with them), unsaved changes take
    /// part when ``FetchRequest/includesPendingChanges`` is true, as for objects: the results are then computed in
    /// memory over the context's objects. A child context's results are computed that way too, over what it reads
    /// through its parent (see <doc:NestedContexts>). Otherwise stores that can compute groups do so (the SQLite store, with
    /// `GROUP BY`), and the others' objects are evaluated in memory; the partial results of every store are
    /// combined (sums of sums, averages from sums and counts, groups merged by their values).
    /// - Throws: ``StoreError/Code/invalidFetchRequest`` for an unknown property, a fetched property beside
    ///   aggregates that is not grouped by, or a group by an aggregate; the predicates' errors (an aggregate of
    ///   values that are not numbers fails as the predicate language's `@sum` does); store errors.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: any Sendable]] {
        let entity = try entity(named: request.entityName)
        checkStores()
        processPendingChanges()
        let plan = try DictionaryFetchPlan(request, entity: entity)
        guard plan.isGrouping else {
            // One dictionary per object, in the objects' order.
            let objects = try fetchObjects(Self.sortedCopy(of: request))
            return try objects.map { object in
                var row: [String: any Sendable] = [:]
                for case .value(let name, let expression, let resultType, _) in plan.columns {
                    if let value = try DictionaryRows.value(of: expression, for: object) {
                        row[name] = DictionaryRows.converted(value, to: resultType)
                    }
                }
                return row
            }
        }
        var groups = try groupedPartials(plan, request: request, entity: entity)
        if plan.groups.isEmpty { try groups.addEmptyGroupIfNone() }
        var rows = groups.rows(plan)
        if let having = request.havingPredicate {
            rows = try rows.filter { try having.evaluate(with: $0 as [String: Any]) }
        }
        if !request.sortKeys.isEmpty {
            let keys = request.sortKeys
            rows = rows.enumerated().sorted { lhs, rhs in
                for key in keys {
                    switch key.compare(lhs.element[key.keyPath], rhs.element[key.keyPath]) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return lhs.offset < rhs.offset
            }.map(\.element)
        }
        if request.fetchOffset > 0 { rows.removeFirst(min(request.fetchOffset, rows.count)) }
        if request.fetchLimit > 0, rows.count > request.fetchLimit { rows.removeSubrange(request.fetchLimit...) }
        return rows
    }

    /// A copy of a request for the objects of a dictionary fetch without groups.
    private static func sortedCopy(of request: FetchRequest) -> FetchRequest {
        let copy = request.objectRequest()
        copy.sortKeys = request.sortKeys
        copy.fetchOffset = request.fetchOffset
        copy.fetchLimit = request.fetchLimit
        return copy
    }

    /// The groups of every store the request reaches, combined: from the stores that compute them, else from
    /// their objects in memory (all of them, unsaved changes included, when there are unsaved changes).
    private func groupedPartials(
        _ plan: DictionaryFetchPlan, request: FetchRequest,
        entity: EntityDescription
    ) throws -> GroupAccumulator {
        var groups = GroupAccumulator(aggregates: plan.aggregates)
        func addObjects(of stores: [PersistentStore]?) throws {
            let objectRequest = request.objectRequest()
            if let stores { objectRequest.affectedStores = stores }
            for object in try fetchObjects(objectRequest) { try groups.add(object, plan: plan) }
        }
        // A child's objects come through its parent, whose unsaved changes the stores do not hold.
        if parent != nil || (request.includesPendingChanges && hasPendingChanges) {
            try addObjects(of: request.affectedStores)
            return groups
        }
        let names = request.includesSubentities ? entity.selfAndDescendants.map(\.name) : [entity.name]
        let targets = persistentStoreCoordinator.targets(entityNames: names, affectedStores: request.affectedStores)
        var inMemory: [PersistentStore] = []
        if let paths = plan.groupKeyPaths {
            let storeRequest = StoreAggregateRequest(
                entity: entity, entityNames: Set(names),
                predicate: request.predicate, groupKeyPaths: paths,
                aggregates: plan.aggregates)
            for target in targets {
                if let rows = try persistentStoreCoordinator.aggregate(storeRequest, on: target) {
                    try groups.add(rows)
                } else {
                    inMemory.append(target.store)
                }
            }
        } else {
            inMemory = targets.map(\.store)
        }
        if !inMemory.isEmpty { try addObjects(of: inMemory) }
        return groups
    }
}
