import AlmanacWire
import ObjectGraph

/// Wire objects of stored records, kept per store so repeated fetches of the same objects skip encoding them.
///
/// An entry belongs to one store object and one record version: a replaced store's entries are never served again
/// (entries are kept by ``PersistentStore/instanceNumber``, which no other store object shares, even one that reads
/// the same file), and a saved change bumps the record's version. Detached stores' entries are dropped by
/// ``removeEntries(ofStoresOtherThan:)``, which fetches call when the cache holds more stores than are attached, so
/// churn in the watched folders does not grow the cache; when it holds `limit` objects, it starts over.
final class WireObjectCache: Sendable {
    private struct Key: Hashable {
        let entityName: String
        let referenceKey: Int64

        init(_ record: StoreRecord) {
            entityName = record.objectID.entityName
            referenceKey = record.objectID.referenceKey
        }
    }

    private struct State: ~Copyable {
        var stores: [UInt64: [Key: (version: Int64, object: WireObject)]] = [:]
        var count = 0
    }

    private let state = LockedValue(State())
    /// The most objects kept.
    let limit: Int

    init(limit: Int = 200_000) {
        self.limit = limit
    }

    /// The wire object of each record (stored in `stores`, by identifier), made by `make` when not cached.
    ///
    /// `make` runs without the cache's lock, so requests on other threads encode at the same time.
    func values(for records: [StoreRecord], stores: (String) -> PersistentStore?,
                make: (StoreRecord) -> WireObject) -> [WireObject] {
        let slots = records.map { record in
            record.objectID.storeIdentifier.flatMap(stores).map { $0.instanceNumber }
        }
        // The objects go straight into the result (a placeholder where one is to be made): an array of optionals
        // mapped at the end copied and destroyed every object twice more, each copy a retain per field
        // (callgrind: most of this function's cost in a 50-object reply).
        var missing: [Int] = []
        var values: [WireObject] = state.withLock { state in
            var values: [WireObject] = []
            values.reserveCapacity(records.count)
            for index in records.indices {
                let record = records[index]
                if let slot = slots[index], let cached = state.stores[slot]?[Key(record)],
                    cached.version == record.version
                {
                    values.append(cached.object)
                } else {
                    values.append(Self.placeholder)
                    missing.append(index)
                }
            }
            return values
        }
        var made: [Int] = []
        for index in missing {
            values[index] = make(records[index])
            if slots[index] != nil { made.append(index) }
        }
        if !made.isEmpty {
            state.withLock { state in
                for index in made {
                    if state.count >= limit {
                        state.stores = [:]
                        state.count = 0
                    }
                    let record = records[index]
                    if state.stores[slots[index]!, default: [:]].updateValue((record.version, values[index]),
                                                                            forKey: Key(record)) == nil {
                        state.count += 1
                    }
                }
            }
        }
        return values
    }

    /// What stands in the result for an object until it is made.
    private static let placeholder = WireObject(uri: "", entity: "", store: "", values: [:])

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

    /// The number of store objects with cached entries.
    var storeCount: Int { state.withLock { $0.stores.count } }

    /// The number of objects cached.
    var count: Int { state.withLock { $0.count } }
}
