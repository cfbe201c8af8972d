import Foundation

extension PersistentStoreCoordinator {
    /// Copies every object of a store into a new store of another type at another URL, removes the old store and
    /// attaches the new one in its place.
    ///
    /// The new store has its own UUID, so the old object IDs become invalid: contexts should refetch.
    /// - Throws: ``StoreError/Code/storeNotFound`` for a store that is not attached, ``StoreError/Code/storeAlreadyAdded``
    ///   if the destination already holds objects, or the new store's errors; the old store stays attached then.
    @discardableResult
    public func migratePersistentStore(_ store: PersistentStore, to url: URL, options: PersistentStoreOptions = [:],
                                       type: PersistentStoreType) throws -> PersistentStore {
        try performAndWait {
            guard let index = persistentStores.firstIndex(where: { $0 === store }) else {
                throw StoreError(code: .storeNotFound, message: "The store to migrate is not attached.",
                                 context: ErrorContext(storeURL: store.url))
            }
            var newOptions = options
            newOptions[.readOnly] = false
            let destination = try makeStore(type: type, configurationName: store.configurationName, url: url,
                                            options: newOptions)
            let records = try store.allRecords()
            if let existing = try? destination.allRecords(), !existing.isEmpty {
                throw StoreError(code: .storeAlreadyAdded,
                                 message: "The migration destination \(url.path) already holds objects; choose a new file.",
                                 context: ErrorContext(storeURL: url))
            }
            let newIdentifier = destination.identifier
            func remap(_ id: ManagedObjectID) -> ManagedObjectID {
                id.storeIdentifier == store.identifier
                    ? ManagedObjectID(entityName: id.entityName, storeIdentifier: newIdentifier, referenceKey: id.referenceKey)
                    : id
            }
            var changes = StoreChanges()
            changes.inserted = records.map { record in
                var copy = record
                copy.objectID = remap(record.objectID)
                copy.version = 1
                for (key, value) in record.values {
                    if let id = value as? ManagedObjectID {
                        copy[key] = remap(id)
                    } else if let ids = value as? [ManagedObjectID] {
                        copy[key] = ids.map(remap)
                    }
                }
                return copy
            }
            let prepared = try destination.prepareSave(changes)
            do {
                try prepared.commit()
            } catch {
                prepared.abort()
                throw error
            }
            if options.flag(.readOnly) { destination.isReadOnly = true }
            try replace(persistentStores[index], with: destination)
            return destination
        }
    }
}
