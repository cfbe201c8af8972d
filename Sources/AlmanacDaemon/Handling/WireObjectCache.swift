import AlmanacWire
import ObjectGraph
import Synchronization

/// Wire objects of stored records, kept per store so repeated fetches of the same objects skip encoding them.
///
/// An entry belongs to one store object and one record version: a replaced store's entries are never served again
/// (entries are kept by ``PersistentStore/instanceNumber``, which no other store object shares, even one that reads
/// the same file), and a saved change bumps the record's version. Detached stores' entries are dropped by
/// ``removeEntries(ofStoresOtherThan:)``, which fetches call with the attached stores, so churn in the watched
/// folders does not grow the cache; when it holds `limit` objects, it starts over.
final class WireObjectCache: Sendable {
    private struct Key: Hashable {
        let entityName: String
        let referenceKey: Int64
    }

    private struct State: ~Copyable {
        var stores: [UInt64: [Key: (version: Int64, value: JSONValue)]] = [:]
        var count = 0
    }

    private let state = Mutex(State())
    /// The most objects kept.
    let limit: Int

    init(limit: Int = 200_000) {
        self.limit = limit
    }

    /// The wire object of each record (stored in `stores`, by identifier), made by `make` when not cached.
    func values(for records: [StoreRecord], stores: (String) -> PersistentStore?,
                make: (StoreRecord) -> JSONValue) -> [JSONValue] {
        state.withLock { state in
            records.map { record in
                guard let identifier = record.objectID.storeIdentifier, let store = stores(identifier) else {
                    return make(record)
                }
                let slot = store.instanceNumber
                let key = Key(entityName: record.objectID.entityName, referenceKey: record.objectID.referenceKey)
                if let cached = state.stores[slot]?[key], cached.version == record.version { return cached.value }
                let value = make(record)
                if state.count >= limit {
                    state.stores = [:]
                    state.count = 0
                }
                if state.stores[slot, default: [:]].updateValue((record.version, value), forKey: key) == nil {
                    state.count += 1
                }
                return value
            }
        }
    }

    /// Drops the entries of every store object not in `attached`: a deleted file's store, a replaced file's earlier
    /// version. Complexity: O(stores cached + attached).
    func removeEntries(ofStoresOtherThan attached: [PersistentStore]) {
        let live = Set(attached.map(\.instanceNumber))
        state.withLock { state in
            for slot in Array(state.stores.keys) where !live.contains(slot) {
                state.count -= state.stores.removeValue(forKey: slot)?.count ?? 0
            }
        }
    }

    /// The number of objects cached.
    var count: Int { state.withLock { $0.count } }
}
