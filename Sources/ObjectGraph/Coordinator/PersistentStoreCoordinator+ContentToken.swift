extension PersistentStoreCoordinator {
    /// What the attached stores hold, as a value to compare: it changes whenever a store is added, removed or
    /// replaced, or any store's records change (see ``PersistentStore/contentToken()``); nil when a store cannot
    /// tell.
    ///
    /// For caches of results: read the token and the result inside one ``performReading(_:)``, and reuse the
    /// result while a later token (read the same way) is equal.
    public func contentToken() throws -> ContentToken? {
        try performReading {
            try combinedToken { store in try store.serializingReads { try store.contentToken() } }
        }
    }

    /// ``contentToken()`` if it can be read without waiting: nil also when a save or store change is under way or
    /// waiting, or another thread is reading a store that answers one read at a time.
    ///
    /// For threads that must not block, such as a server's event loop answering from a cache: on nil, hand the
    /// request to a thread that may wait.
    public func contentTokenWithoutWaiting() throws -> ContentToken? {
        let token = try gate.readIfFree {
            try combinedToken { store in try store.serializingReadsIfFree { try store.contentToken() } ?? nil }
        }
        return token ?? nil
    }

    /// Every attached store's object number and token, read by `read`; nil as soon as one gives none.
    private func combinedToken(_ read: (PersistentStore) throws -> UInt64?) rethrows -> ContentToken? {
        var parts: [UInt64] = []
        let stores = persistentStores
        parts.reserveCapacity(stores.count * 2)
        for store in stores {
            guard let token = try read(store) else { return nil }
            parts.append(store.instanceNumber)
            parts.append(token)
        }
        return ContentToken(parts: parts)
    }
}

/// The state of a coordinator's stores at one moment; see ``PersistentStoreCoordinator/contentToken()``.
public struct ContentToken: Hashable, Sendable {
    let parts: [UInt64]
}
