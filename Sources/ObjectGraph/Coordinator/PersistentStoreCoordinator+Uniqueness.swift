import Foundation

extension PersistentStoreCoordinator {
    /// How many values one query of the saved objects asks about (`attribute IN {...}`).
    private static let uniquenessQueryChunk = 500

    /// Checks the new and changed records of a save against the model's uniqueness constraints, within the save and
    /// against each store's saved objects; called with the coordinator's write access held, so that no other save
    /// comes between the check and the write.
    ///
    /// - Throws: ``StoreError/Code/constraintConflict`` listing every conflict.
    func checkUniqueness(_ changes: [(PersistentStore, StoreChanges)]) throws {
        let constrained = managedObjectModel.entities.filter { !$0.uniquenessConstraints.isEmpty }
        guard !constrained.isEmpty else { return }
        var conflicts: [ConstraintConflict] = []
        for (store, storeChanges) in changes where !(storeChanges.inserted.isEmpty && storeChanges.updated.isEmpty) {
            // Saved objects the save deletes or rewrites no longer hold their saved values.
            let replaced = Set(storeChanges.updated.map(\.objectID) + storeChanges.deleted.map(\.objectID))
            let written = storeChanges.inserted + storeChanges.updated
            for entity in constrained {
                let family = Set(entity.selfAndDescendants.map(\.name))
                let records = written.filter { family.contains($0.objectID.entityName) }
                guard !records.isEmpty else { continue }
                let held = family.filter { store.holds(entityNamed: $0) }
                for constraint in entity.uniquenessConstraints where Self.isCheckable(constraint, in: entity) {
                    conflicts += try uniquenessConflicts(of: records, entity: entity, constraint: constraint,
                                                         store: store, heldNames: held, replaced: replaced)
                }
            }
        }
        guard !conflicts.isEmpty else { return }
        let shown = conflicts.prefix(3).map(\.description).joined(separator: "; ")
        let more = conflicts.count > 3 ? " and \(conflicts.count - 3) more" : ""
        var error = StoreError(
            code: .constraintConflict,
            message: "The save breaks a uniqueness constraint: \(shown)\(more). Change the values, or set a merge "
                + "policy that resolves the conflicts (mergeByPropertyObjectTrump or mergeByPropertyStoreTrump).",
            context: ErrorContext(entityName: conflicts[0].entityName, key: conflicts[0].constraint.joined(separator: ",")),
            objectIDs: conflicts.flatMap { $0.conflictingObjectIDs + [$0.databaseObjectID].compactMap { $0 } })
        error.constraintConflicts = conflicts
        throw error
    }

    /// Whether every name of a constraint is an attribute of the entity or an element of one of its composite
    /// attributes (`magnitude.scale`); constraints naming anything else are not checked.
    private static func isCheckable(_ constraint: [String], in entity: EntityDescription) -> Bool {
        !constraint.isEmpty
            && constraint.allSatisfy { name in
                guard let dot = name.firstIndex(of: ".") else {
                    return entity.layout.propertiesByName[name] is AttributeDescription
                }
                guard
                    let composite = entity.layout.propertiesByName[String(name[..<dot])]
                        as? CompositeAttributeDescription
                else { return false }
                let path = name[name.index(after: dot)...].split(separator: ".").map(String.init)
                return composite.leafElements.contains { $0.path == path }
            }
    }

    /// A record's value for a name of a constraint: an attribute's, or an element's at its key path.
    private static func constraintValue(_ record: StoreRecord, _ name: String) -> (any Sendable)? {
        guard let dot = name.firstIndex(of: ".") else { return record[name] }
        let path = name[name.index(after: dot)...].split(separator: ".").map(String.init)
        return CompositeAttributeDescription.value(at: path, in: record[String(name[..<dot])])
    }

    /// The values of a constraint, compared as hashable values; `nil` when one is missing (the object is then not
    /// constrained) or cannot be compared.
    private static func constraintKey(_ values: [(any Sendable)?]) -> [AnyHashable]? {
        var key: [AnyHashable] = []
        key.reserveCapacity(values.count)
        for value in values {
            guard let value, let hashable = value as? AnyHashable else { return nil }
            if let double = value as? Double, double.isNaN { return nil }
            key.append(hashable)
        }
        return key
    }

    private func uniquenessConflicts(of records: [StoreRecord], entity: EntityDescription, constraint: [String],
                                     store: PersistentStore, heldNames: Set<String>,
                                     replaced: Set<ManagedObjectID>) throws -> [ConstraintConflict] {
        // The save's own objects, grouped by their values, in the save's order.
        var groups: [[AnyHashable]: [ManagedObjectID]] = [:]
        var order: [[AnyHashable]] = []
        for record in records {
            guard let key = Self.constraintKey(constraint.map { Self.constraintValue(record, $0) }) else { continue }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(record.objectID)
        }
        guard !order.isEmpty else { return [] }

        // The saved objects with the same values. A store that keeps sorted orders holds its records in memory and
        // hands them over whole: one pass over them. Other stores are asked, in chunks, for the objects whose every
        // constrained attribute has one of the chunk's values; the exact combinations are compared here, the sort
        // keys bringing every constrained value back with each ID.
        var saved: [[AnyHashable]: ManagedObjectID] = [:]
        func note(_ id: ManagedObjectID, _ values: [(any Sendable)?]) {
            guard !replaced.contains(id), let key = Self.constraintKey(values), groups[key] != nil,
                  saved[key] == nil else { return }
            saved[key] = id
        }
        if !heldNames.isEmpty, store is any SortedOrderStore {
            let request = StoreFetchRequest(entity: entity, entityNames: heldNames, predicate: nil, sortKeys: [],
                                            limit: 0, includesValues: true)
            for result in try store.serializingReads({ try store.fetch(request) }) {
                guard let record = result.record else { continue }
                note(result.objectID, constraint.map { Self.constraintValue(record, $0) })
            }
        } else if !heldNames.isEmpty {
            let sortKeys = constraint.map { SortKey($0) }
            var start = 0
            while start < order.count {
                let chunk = order[start..<min(start + Self.uniquenessQueryChunk, order.count)]
                start += chunk.count
                // Every constrained attribute narrows the query (the store's index on the constraint serves
                // them all): by the first one alone, a constraint whose first value is shared by many saved
                // objects (a conference's favourites) read all of them for each save.
                let parts = try constraint.indices.map { position in
                    let values = Array(Set(chunk.map { $0[position] })).map(\.base)
                    return try ObjectPredicate(format: "%K IN %@", constraint[position], values)
                }
                let request = StoreFetchRequest(
                    entity: entity, entityNames: heldNames,
                    predicate: parts.count == 1 ? parts[0] : ObjectPredicate.and(parts), sortKeys: sortKeys,
                    limit: 0, includesValues: false)
                for result in try store.serializingReads({ try store.fetch(request) }) {
                    note(result.objectID, result.sortValues)
                }
            }
        }

        let found = order.filter { groups[$0]!.count > 1 || saved[$0] != nil }
        guard !found.isEmpty else { return [] }
        // Snapshots, as Core Data's conflicts carry them: built only for a save that has conflicts.
        let recordOf = Dictionary(records.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        return try found.map { key in
            let ids = groups[key]!
            var conflict = ConstraintConflict(entityName: entity.name, constraint: constraint,
                                              values: key.map { "\($0.base)" }, databaseObjectID: saved[key],
                                              conflictingObjectIDs: ids)
            for (name, value) in zip(constraint, key) { conflict.constraintValues[name] = assumeSendable(value.base) }
            if let id = saved[key] {
                conflict.databaseSnapshot = try store.serializingReads { try store.record(for: id) }?.values
            }
            conflict.conflictingSnapshots = ids.map { recordOf[$0]?.values ?? [:] }
            return conflict
        }
    }
}
