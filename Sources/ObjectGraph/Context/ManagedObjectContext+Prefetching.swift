import Foundation

extension ManagedObjectContext {
    /// Reads the destinations of relationship key paths from fetched objects
    /// (``FetchRequest/relationshipKeyPathsForPrefetching``): one request to each store per hop, destinations made
    /// faults that keep their values, so that following the relationships asks no store.
    ///
    /// Key paths sharing a prefix share its hop (`room` and `room.sessions` read the rooms once). A child context
    /// reads the destinations from its parent's objects instead, with the parent's unsaved changes.
    /// - Throws: ``StoreError/Code/invalidFetchRequest`` for a key path whose component is no relationship of the
    ///   objects reached; store errors.
    func prefetch(_ keyPaths: [String], from objects: [ManagedObject]) throws {
        var reached: [String: [ManagedObject]] = ["": objects]
        for keyPath in keyPaths {
            var prefix = ""
            var sources = objects
            for key in keyPath.split(separator: ".").map(String.init) {
                let path = prefix.isEmpty ? key : prefix + "." + key
                defer { prefix = path }
                if let known = reached[path] {
                    sources = known
                    continue
                }
                // The destinations' own to-many lists are read only when a key path goes on through them.
                let goesOn = keyPaths.contains { $0.hasPrefix(path + ".") }
                sources = try prefetchHop(key, of: sources, keyPath: keyPath, toManyLists: goesOn)
                reached[path] = sources
            }
        }
    }

    /// The destinations of one relationship of `sources`, their values read with one request to each store;
    /// without `toManyLists`, stores that can leave the destinations' own to-many lists for later do.
    private func prefetchHop(_ key: String, of sources: [ManagedObject], keyPath: String, toManyLists: Bool) throws
        -> [ManagedObject]
    {
        var destinationIDs: [ManagedObjectID] = []
        var seen: Set<ManagedObjectID> = []
        // The relationship's slot and kind, found once per entity (sub-entities have their own layouts).
        var checkedEntity: EntityDescription?
        var slot = 0
        var isToMany = false
        for object in sources {
            if object.entity !== checkedEntity {
                guard let relationship = object.entity.relationshipsByName[key],
                    let index = object.slotLayout.slot(forKey: key)
                else {
                    throw StoreError(
                        code: .invalidFetchRequest,
                        message: "Cannot prefetch '\(keyPath)': '\(key)' is no relationship of entity "
                            + "'\(object.entity.name)'.",
                        context: ErrorContext(entityName: object.entity.name, key: key))
                }
                checkedEntity = object.entity
                slot = index
                isToMany = relationship.isToMany
            }
            collectStoredDestinationIDs(of: object, slot: slot, isToMany: isToMany, into: &destinationIDs, seen: &seen)
        }
        let missing = destinationIDs.filter { id in
            // A child's parent holds new objects too, under temporary IDs.
            guard let object = registered[id] else { return parent != nil || !id.isTemporaryID }
            guard object.storage == .fault else { return false }
            // A fault whose kept values left out the lists a further hop reads is read again, with them.
            guard let kept = object.faultValues else { return true }
            return toManyLists && kept.omitsToManyLists
        }
        if let parent {
            // A child reads the destinations from its parent, unsaved changes included, as its faults do.
            for id in missing {
                guard let source = try parent.liveObject(for: id) else { continue }
                let object = self.object(with: id)
                guard object.storage == .fault else { continue }
                object.apply(parent.currentRecord(of: source), in: self)
                object.awakeFromFetch()
            }
        } else if !missing.isEmpty {
            let generation = persistentStoreCoordinator.contentGeneration
            let records = try persistentStoreCoordinator.records(for: missing, toManyLists: toManyLists)
            for id in missing {
                guard let record = records[id] else { continue }
                // A fault read again (above) keeps the new values instead.
                _ = materialize(id, record: record, asFault: true, generation: generation)
            }
        }
        return destinationIDs.map { object(with: $0) }
    }

    /// Adds the IDs a relationship of an object holds (the one at `slot`) to `ids`, those not `seen` yet, read
    /// from its values or from the values its fault keeps (without firing it); none for a fault without values.
    /// The value is cast only to what the relationship's kind holds: a record keeps a to-one as an ID and a
    /// to-many as an array of IDs, an object a to-one as an object and a to-many as its storage (whose IDs are
    /// read without making objects of them). Collected in place: an array per object (one for each to-one)
    /// cost an allocation each.
    private func collectStoredDestinationIDs(
        of object: ManagedObject, slot: Int, isToMany: Bool, into ids: inout [ManagedObjectID],
        seen: inout Set<ManagedObjectID>
    ) {
        switch object.storage {
        case .fault:
            guard let kept = object.faultValues else { return }
            // Read by position when the record is laid out by the entity's keys (a store read it whole), without
            // hashing the key; cast from the record's own type, not through `Any`.
            let record = kept.record
            let layout = object.slotLayout
            let value: (any Sendable)?
            if let row = record.row(laidOutBy: layout.recordKeys) {
                let position = layout.recordPositions[slot]
                value = position < 0 ? nil : row[position]
            } else {
                value = record[layout.properties[slot].name]
            }
            if isToMany {
                guard let list = value as? [ManagedObjectID] else { return }
                for id in list where seen.insert(id).inserted { ids.append(id) }
            } else if let id = value as? ManagedObjectID, seen.insert(id).inserted {
                ids.append(id)
            }
        case .loaded:
            let value = object.slots[slot]
            if isToMany {
                guard let storage = value as? ToManyStorage else { return }
                for id in storage.objectIDs where seen.insert(id).inserted { ids.append(id) }
            } else if let id = (value as? ManagedObject)?.objectID, seen.insert(id).inserted {
                ids.append(id)
            }
        case .invalid:
            return
        }
    }
}
