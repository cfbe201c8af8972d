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

    /// The list of attached stores (its generation), the sum of the atomic stores' versions, and the token of each
    /// other store, read by `read`; nil as soon as one gives none.
    ///
    /// Atomic stores change only by their loads and saves, which move `AtomicStore.contentChanges`: the sum of
    /// their versions is kept until that counter moves, so the token's cost does not grow with the number of files
    /// a daemon serves (with 10,000 binary stores, every request, even one answered from a cache, visited each).
    private func combinedToken(_ read: (PersistentStore) throws -> UInt64?) rethrows -> ContentToken? {
        let (generation, versions, stores) = contentTokenSources()
        var parts: [UInt64] = [generation, versions]
        parts.reserveCapacity(2 + stores.count)
        for store in stores {
            guard let token = try read(store) else { return nil }
            parts.append(token)
        }
        return ContentToken(parts: parts)
    }
}

/// The state of a coordinator's stores at one moment; see ``PersistentStoreCoordinator/contentToken()``.
public struct ContentToken: Hashable, Sendable {
    let parts: [UInt64]
}
