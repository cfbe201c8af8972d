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
    ///
    /// The destinations' IDs are gathered first (with repeats), then made objects of the context once each, told
    /// apart by identity: a set of IDs cost a hash of each ID and a registry lookup after it (callgrind: a tenth of
    /// a prefetching fetch).
    private func prefetchHop(_ key: String, of sources: [ManagedObject], keyPath: String, toManyLists: Bool) throws
        -> [ManagedObject]
    {
        var destinationIDs: [ManagedObjectID] = []
        destinationIDs.reserveCapacity(sources.count)
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
            Self.appendStoredDestinationIDs(of: object, slot: slot, isToMany: isToMany, to: &destinationIDs)
        }
        var destinations: [ManagedObject] = []
        var seen = AddressTable()
        var faultClass: EntityClass?
        for id in destinationIDs {
            let destination = object(with: id, faultClass: &faultClass)
            if seen.insert(destinations.count, forKey: ObjectIdentifier(destination)) {
                destinations.append(destination)
            }
        }
        let missing = destinations.filter { object in
            guard object.storage == .fault else { return false }
            // A fault whose kept values left out the lists a further hop reads is read again, with them.
            if let kept = object.faultValues { return toManyLists && kept.omitsToManyLists }
            // A child's parent holds new objects too, under temporary IDs; a store holds none.
            return parent != nil || !object.objectID.isTemporaryID
        }
        if let parent {
            // A child reads the destinations from its parent, unsaved changes included, as its faults do.
            for object in missing {
                guard let source = try parent.liveObject(for: object.objectID), object.storage == .fault else {
                    continue
                }
                object.apply(parent.currentRecord(of: source), in: self)
                object.awakeFromFetch()
            }
        } else if !missing.isEmpty {
            let generation = persistentStoreCoordinator.contentGeneration
            let ids = missing.map(\.objectID)
            var records = try persistentStoreCoordinator.records(for: ids, toManyLists: toManyLists)
            for (index, object) in missing.enumerated() {
                // A fault read again (above) keeps the new values instead.
                _ = filled(object, from: records[index].take(), asFault: true, generation: generation)
            }
        }
        return destinations
    }

    /// Appends the IDs a relationship of an object holds (the one at `slot`) to `ids`, read from its values or
    /// from the values its fault keeps (without firing it); none for a fault without values. The value is cast only
    /// to what the relationship's kind holds: a record keeps a to-one as an ID and a to-many as an array of IDs, an
    /// object a to-one as an object and a to-many as its storage (whose IDs are read without making objects of
    /// them). The kept values are moved out of the fault and back, their parts bound by a consuming switch:
    /// switching over the fault's property copied the kept record, a retain and a release of its keys and of its
    /// row for each value read (callgrind: 3 retains fewer per value, a prefetching fetch 4% faster).
    private static func appendStoredDestinationIDs(
        of object: ManagedObject, slot: Int, isToMany: Bool, to ids: inout [ManagedObjectID]
    ) {
        switch object.storage {
        case .fault:
            let value: (any Sendable)?
            let kept = object.faultValues.take()
            switch consume kept {
            case .record(let record)?:
                value = storedValue(in: record, slot: slot, layout: object.slotLayout)
                object.faultValues = .record(record)
            case .row(let rows, let index)?:
                value = storedValue(in: rows.record(at: index), slot: slot, layout: object.slotLayout)
                object.faultValues = .row(rows, index)
            case nil: return
            }
            if isToMany {
                guard let list = value as? [ManagedObjectID] else { return }
                ids.append(contentsOf: list)
            } else if let id = value as? ManagedObjectID {
                ids.append(id)
            }
        case .loaded:
            let value = object.slots[slot]
            if isToMany {
                guard let storage = value as? ToManyStorage else { return }
                ids.append(contentsOf: storage.objectIDs)
            } else if let id = (value as? ManagedObject)?.objectID {
                ids.append(id)
            }
        case .invalid:
            return
        }
    }

    /// The value a record keeps for a slot: by position when the record is laid out by the entity's keys (a store
    /// read it whole), without hashing the key; by name otherwise.
    private static func storedValue(
        in record: borrowing StoreRecord, slot: Int, layout: EntityDescription.Layout
    ) -> (any Sendable)? {
        let position = layout.recordPositions[slot]
        if let value = record.rowValue(at: position, laidOutBy: layout.recordKeys) { return value }
        return record[layout.properties[slot].name]
    }
}
