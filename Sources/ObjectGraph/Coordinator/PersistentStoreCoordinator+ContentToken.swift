extension PersistentStoreCoordinator {
    /// What the attached stores hold, as a value to compare: it changes whenever a store is added, removed or
    /// replaced, or any store's records change (see ``PersistentStore/contentToken()``); nil when a store cannot
    /// tell.
    ///
    /// For caches of results: read the token and the result inside one ``performReading(_:)``, and reuse the
    /// result while a later token (read the same way) is equal.
    public func contentToken() throws -> ContentToken? {
        try performReading {
            var parts: [UInt64] = []
            let stores = persistentStores
            parts.reserveCapacity(stores.count * 2)
            for store in stores {
                guard let token = try store.serializingReads({ try store.contentToken() }) else { return nil }
                parts.append(store.instanceNumber)
                parts.append(token)
            }
            return ContentToken(parts: parts)
        }
    }
}

/// The state of a coordinator's stores at one moment; see ``PersistentStoreCoordinator/contentToken()``.
public struct ContentToken: Hashable, Sendable {
    let parts: [UInt64]
}
