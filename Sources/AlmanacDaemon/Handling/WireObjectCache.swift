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
    /// An object of one store object.
    private struct Key: Hashable {
        let store: UInt64
        let referenceKey: Int64
        let entityName: String

        init(store: UInt64, _ record: borrowing StoreRecord) {
            self.store = store
            referenceKey = record.objectID.referenceKey
            entityName = record.objectID.entityName
        }
    }

    /// A cached object and the record version it shows.
    private struct Entry {
        let version: Int64
        let object: WireObject
    }

    /// One table for every store (a table per store cost a second lookup and a copy of the inner table's reference
    /// per object), and how many entries each store has.
    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var countsByStore: [UInt64: Int] = [:]

        mutating func removeAll() {
            entries = [:]
            countsByStore = [:]
        }
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
        let keys = records.map { record in
            record.objectID.storeIdentifier.flatMap(stores).map { Key(store: $0.instanceNumber, record) }
        }
        // The objects go straight into the result (a placeholder where one is to be made): an array of optionals
        // mapped at the end copied and destroyed every object twice more (callgrind).
        var missing: [Int] = []
        var values: [WireObject] = state.withLock { state in
            var values: [WireObject] = []
            values.reserveCapacity(records.count)
            for index in records.indices {
                if let key = keys[index], let cached = state.entries[key], cached.version == records[index].version {
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
            if keys[index] != nil { made.append(index) }
        }
        if !made.isEmpty {
            state.withLock { state in
                for index in made {
                    if state.entries.count >= limit { state.removeAll() }
                    let key = keys[index]!
                    let entry = Entry(version: records[index].version, object: values[index])
                    if state.entries.updateValue(entry, forKey: key) == nil {
                        state.countsByStore[key.store, default: 0] += 1
                    }
                }
            }
        }
        return values
    }

    /// What stands in the result for an object until it is made.
    private static let placeholder = WireObject(uri: "", entity: "", store: "", values: [:])

    /// Drops the entries of every store object not in `attached`: a deleted file's store, a replaced file's earlier
    /// version. Complexity: O(objects cached) when a store is dropped, else O(stores cached + attached).
    func removeEntries(ofStoresOtherThan attached: [PersistentStore]) {
        let live = Set(attached.map(\.instanceNumber))
        state.withLock { state in
            let gone = state.countsByStore.keys.filter { !live.contains($0) }
            guard !gone.isEmpty else { return }
            for store in gone { state.countsByStore[store] = nil }
            state.entries = state.entries.filter { live.contains($0.key.store) }
        }
    }

    /// The number of store objects with cached entries.
    var storeCount: Int { state.withLock { $0.countsByStore.count } }

    /// The number of objects cached.
    var count: Int { state.withLock { $0.entries.count } }
}
