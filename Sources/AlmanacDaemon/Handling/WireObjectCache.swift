import AlmanacWire
import ObjectGraph
import Synchronization

/// Wire objects of stored records, kept per store so repeated fetches of the same objects skip encoding them.
///
/// An entry belongs to one store object and one record version: a replaced or detached store's entries are never
/// served again (its entries are found by the store's object identity and checked through a weak reference, so a
/// new store at a reused address starts empty), and a saved change bumps the record's version. The cache holds at
/// most `limit` objects and starts over when full.
final class WireObjectCache: Sendable {
    private struct Key: Hashable {
        let entityName: String
        let referenceKey: Int64
    }

    private struct StoreEntries {
        weak var store: PersistentStore?
        var objects: [Key: (version: Int64, value: JSONValue)] = [:]
    }

    private struct State: ~Copyable {
        var stores: [ObjectIdentifier: StoreEntries] = [:]
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
                let slot = ObjectIdentifier(store)
                let key = Key(entityName: record.objectID.entityName, referenceKey: record.objectID.referenceKey)
                if let entries = state.stores[slot], entries.store === store {
                    if let cached = entries.objects[key], cached.version == record.version { return cached.value }
                } else {
                    if let stale = state.stores.removeValue(forKey: slot) { state.count -= stale.objects.count }
                    state.stores[slot] = StoreEntries(store: store)
                }
                let value = make(record)
                if state.count >= limit {
                    state.stores = [slot: StoreEntries(store: store)]
                    state.count = 0
                }
                if state.stores[slot]!.objects.updateValue((record.version, value), forKey: key) == nil {
                    state.count += 1
                }
                return value
            }
        }
    }

    /// The number of objects cached.
    var count: Int { state.withLock { $0.count } }
}
