import Foundation
import Synchronization

/// The family of stores that load the whole graph at once and write it as one unit (Core Data's
/// `NSAtomicStore`): the in-memory, XML and binary stores and custom file formats.
///
/// The base class keeps every object as a ``StoreRecord`` (a cache node) and executes fetches, counts and saves
/// over them. A custom format subclasses it and overrides:
/// - `storeType` (the name it registers under),
/// - ``PersistentStore/loadMetadata()`` (read the UUID and model hashes from the file, or call `freshMetadata()`),
/// - ``PersistentStore/load()`` (read the file and call ``addCacheNodes(_:)``),
/// - ``prepareWrite(records:metadata:)`` (encode the records, usually with ``AtomicFileWriter``) — omit it for a
///   read-only format and add the store with the `.readOnly` option.
// Reads change only `orders`, under its lock.
open class AtomicStore: PersistentStore, SortedOrderStore, StoreObjectCounting, @unchecked Sendable {
    // Changed only by loads and saves, which the coordinator never runs beside a read.
    private var tables: [String: [Int64: StoreRecord]] = [:]  // every change also empties the cached orders
    private var recordCount = 0
    /// Records in the order of a sort, by entity names and sort keys: built by the first sorted fetch, reused by the
    /// next ones until the records change (any change to `tables` drops them). Reads fill it, hence its lock.
    private let orders = LockedValue(SortedOrders())
    /// At most this many sort orders are kept; the least recently used goes first.
    static let sortedOrderLimit = 8

    private struct SortedOrders: ~Copyable {
        var byKey: [SortedOrder.Key: SortedOrder] = [:]
        var use = 0
    }

    /// Changes whenever the records change (a load adds records, a save commits): caches of what the store holds
    /// compare it (see ``SortedOrderStore``).
    private(set) var contentVersion: UInt64 = 0

    /// Reads change nothing but the cached sort orders, which are guarded.
    open override class var allowsConcurrentReads: Bool { true }

    /// The records change only by a load or a save, which change `contentVersion` (and `contentChanges`:
    /// coordinators read that rather than each atomic store's token, hence not overridable).
    public final override func contentToken() throws -> UInt64? { contentVersion }

    /// Moves whenever the records of any atomic store of the process change, after its `contentVersion`.
    package static let contentChanges = Atomic<UInt64>(0)
    /// The next unused reference key (Core Data's XML `nextObjectID`).
    public var nextReferenceKey: Int64 = 1
    /// The store's persistent history, when it tracks one (see ``PersistentStore/isTrackingPersistentHistory``):
    /// file formats read it in ``PersistentStore/load()`` with ``loadHistory()``.
    public var historyLog = PersistentHistoryLog()

    // MARK: Cache nodes

    /// Adds loaded records to the store's cache; used by ``PersistentStore/load()``.
    ///
    /// A record of a key the store holds replaces it (the last one wins among records of the same key).
    public func addCacheNodes(_ records: consuming [StoreRecord]) {
        orders.withLock { $0.byKey.removeAll() }
        contentVersion += 1
        AtomicStore.contentChanges.add(1, ordering: .releasing)
        // A load hands over every record of a file: each is moved into its entity's table, not copied (a copy
        // retained its ID's names, its keys and its row, and dropping the array released them again, over half
        // of adding a binary store's records), and each table is found by its names' identity, among the few
        // being filled, rather than by hashing the entity name per record. Each table makes room once for the
        // records of its entity.
        var pending = consume records
        var filling = fillingTables(for: pending)
        pending.reverse()  // so that taking from the end hands the records out in their order
        var current = 0
        while let record = pending.popLast() {
            let names = record.objectID.namesIdentity
            if filling[current].names != names {
                current = Self.table(in: filling, names: names) { record.objectID.entityName }!
            }
            let key = record.objectID.referenceKey
            if filling[current].table.updateValue(record, forKey: key) == nil { recordCount += 1 }
            if key >= nextReferenceKey { nextReferenceKey = key + 1 }
        }
        for entry in filling { tables[entry.entityName] = entry.table }
    }

    /// The tables `records` go into, taken out of ``tables`` (or new), each with room for its new records, with
    /// the identity of the names of the first ID seen for each.
    private func fillingTables(for records: [StoreRecord])
        -> [(names: ObjectIdentifier, entityName: String, table: [Int64: StoreRecord])]
    {
        var filling: [(names: ObjectIdentifier, entityName: String, table: [Int64: StoreRecord])] = []
        var counts: [Int] = []
        var current = -1
        for index in records.indices {  // by index: iterating the records copied each
            let names = records[index].objectID.namesIdentity
            if current < 0 || filling[current].names != names {
                if let known = Self.table(in: filling, names: names, entityName: { records[index].objectID.entityName }) {
                    current = known
                } else {
                    let name = records[index].objectID.entityName
                    filling.append((names, name, tables.removeValue(forKey: name) ?? [:]))
                    counts.append(0)
                    current = filling.count - 1
                }
            }
            counts[current] += 1
        }
        for index in filling.indices {
            filling[index].table.reserveCapacity(filling[index].table.count + counts[index])
        }
        return filling
    }

    /// The position in `filling` of the table of an ID with these names: by the names' identity, else (the same
    /// entity with names of their own, not shared) by the entity's name.
    private static func table(
        in filling: [(names: ObjectIdentifier, entityName: String, table: [Int64: StoreRecord])],
        names: ObjectIdentifier, entityName: () -> String
    ) -> Int? {
        if let known = filling.firstIndex(where: { $0.names == names }) { return known }
        let name = entityName()
        return filling.firstIndex { $0.entityName == name }
    }

    /// Every record, ordered by entity name and then reference key (a deterministic order for writing).
    public func cacheNodes() -> [StoreRecord] {
        tables.keys.sorted().flatMap { name in
            tables[name]!.values.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        }
    }

    /// The number of objects in the store.
    public var cacheNodeCount: Int { recordCount }

    /// The number of objects in the store (``cacheNodeCount``, for ``StoreObjectCounting``).
    public var objectCount: Int { recordCount }

    /// The record of one object, if the store holds it.
    public func cacheNode(for objectID: ManagedObjectID) -> StoreRecord? {
        guard objectID.storeIdentifier == identifier else { return nil }
        return tables[objectID.entityName]?[objectID.referenceKey]
    }

    /// Whether saves write the records somewhere; `false` skips preparing them for `prepareWrite(records:metadata:)`.
    open var writesFiles: Bool { true }

    /// The second half of a save for a file format: encodes every record and returns the pending write.
    ///
    /// The default (for the in-memory store) writes nothing. File formats write a temporary file here and rename
    /// it in `commit()`; ``AtomicFileWriter`` does both.
    open func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        ImmediateSave()
    }

    // MARK: Requests

    open override func fetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        var cursor = try makeCursor(request)
        var results: [StoreFetchResult] = []
        while let result = try cursor.next() { results.append(result) }
        return results
    }

    /// A view of every record of the entities, by reference key (the order of object IDs within one store).
    private func views(of entityNames: Set<String>) -> [RecordView] {
        let entities = model.entitiesByName
        var pending: [(record: StoreRecord, entity: EntityDescription)] = []
        for name in entityNames {
            guard let table = tables[name], let entity = entities[name] else { continue }
            pending.reserveCapacity(pending.count + table.count)
            for record in table.values { pending.append((record, entity)) }
        }
        pending.sort { $0.record.objectID.referenceKey < $1.record.objectID.referenceKey }
        // The views are made in the order they are walked (the records' tables hand them out in hash order): one
        // after the other in memory, as the records' rows are (a load or a save makes them in key order), they
        // are read in sequence rather than each at a cache miss.
        var views: [RecordView] = []
        views.reserveCapacity(pending.count)
        for (record, entity) in pending { views.append(RecordView(record: record, store: self, entity: entity)) }
        return views
    }

    /// The records of the request's entities in the order of its sort keys, ties by reference key (no sort keys:
    /// by reference key); kept (see ``SortedOrderStore``).
    func sortedOrder(_ request: StoreFetchRequest, key: SortedOrder.Key) throws -> SortedOrder {
        // Built while holding the lock: two fetches needing the same new order build it once.
        try orders.withLock { orders in
            orders.use += 1
            if let order = orders.byKey[key] {
                order.lastUse = orders.use
                return order
            }
            let order = try buildOrder(request, key: key, use: orders.use)
            if orders.byKey.count >= Self.sortedOrderLimit,
                let oldest = orders.byKey.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                orders.byKey[oldest] = nil
            }
            orders.byKey[key] = order
            return order
        }
    }

    private func buildOrder(_ request: StoreFetchRequest, key: SortedOrder.Key, use: Int) throws -> SortedOrder {
        let views = views(of: request.entityNames)
        let keys = request.sortKeys
        let width = keys.count
        // Ties keep the views' order, which is by reference key.
        let (positions, prepared) = try SortKey.sortedPositions(views, by: keys) { try $0.sortValue($1) }
        var sortedPrepared: [SortValue] = []
        sortedPrepared.reserveCapacity(prepared.count)
        for position in positions { sortedPrepared.append(contentsOf: prepared[(position * width)..<(position * width + width)]) }
        let entities = request.entityNames.sorted().compactMap { model.entitiesByName[$0] }
        return SortedOrder(views: positions.map { views[$0] }, entities: entities, keys: keys,
                           prepared: sortedPrepared, lastUse: use)
    }

    open override func count(_ request: StoreFetchRequest) throws -> Int {
        guard let predicate = request.predicate else {
            return request.entityNames.reduce(0) { $0 + (tables[$1]?.count ?? 0) }
        }
        // The cached order of the entities (by reference key) holds the views already made. When the predicate
        // bounds an attribute (`start <= $NOW AND end > $NOW`), the order by that attribute is walked over the
        // range that can match instead (see `OrderRange`), the narrowest such range if several attributes are.
        let names = request.entityNames
        func keyed(_ keys: [SortKey]) -> StoreFetchRequest {
            StoreFetchRequest(
                entity: request.entity, entityNames: names, predicate: predicate, sortKeys: keys, limit: 0,
                includesValues: false)
        }
        let ranged = OrderRange.narrowest(for: predicate) { key in
            try? sortedOrder(keyed([key]), key: SortedOrder.Key(entityNames: names, sortKeys: [key]))
        }
        var cursor = try makeCursor(keyed(ranged?.keys ?? []))
        return try cursor.skip(Int.max)
    }

    open override func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        cacheNode(for: objectID)
    }

    open override func newReferenceKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        let first = nextReferenceKey
        nextReferenceKey += Int64(count)
        return (0..<Int64(count)).map { first + $0 }
    }

    open override func allRecords() throws -> [StoreRecord] { cacheNodes() }

    // History: kept in ``historyLog``, and by file formats in a side file (see `AtomicStore+History.swift`).

    /// Atomic stores keep a persistent history when asked to.
    open override class var supportsPersistentHistory: Bool { true }

    open override func loadHistory() throws { try readHistorySideFile() }

    open override func fetchHistory(_ query: PersistentHistoryQuery) throws -> [PersistentHistoryTransaction] {
        try historyLog.transactions(matching: query, expired: historyTokenExpired)
    }

    open override func deleteHistory(_ cutoff: PersistentHistoryCutoff) throws -> Int {
        try deleteFromHistoryLog(cutoff)
    }

    open override func lastHistoryTransactionNumber() throws -> Int64 { historyLog.lastTransactionNumber }

    open override func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        var staged = tables
        var stagedCount = recordCount
        var conflicts: [ManagedObjectID] = []
        for record in changes.updated {
            let id = record.objectID
            guard let current = staged[id.entityName]?[id.referenceKey], current.version == record.version else {
                conflicts.append(id)
                continue
            }
            var next = record
            next.version = current.version + 1
            staged[id.entityName]![id.referenceKey] = next
        }
        for (id, version) in changes.deleted {
            guard let current = staged[id.entityName]?[id.referenceKey], current.version == version else {
                conflicts.append(id)
                continue
            }
            staged[id.entityName]![id.referenceKey] = nil
            stagedCount -= 1
        }
        guard conflicts.isEmpty else {
            throw StoreError(code: .mergeConflict,
                             message: "\(conflicts.count) object(s) changed in the store since they were read; "
                                + "refresh them or set a merge policy on the context.",
                             context: ErrorContext(storeURL: url), objectIDs: conflicts)
        }
        for record in changes.inserted {
            let id = record.objectID
            if staged[id.entityName, default: [:]].updateValue(record, forKey: id.referenceKey) == nil {
                stagedCount += 1
            }
            if id.referenceKey >= nextReferenceKey { nextReferenceKey = id.referenceKey + 1 }
        }
        var newMetadata = metadata
        newMetadata.modelVersionHashes = modelVersionHashes()
        let ordered = writesFiles ? staged.keys.sorted().flatMap { name in
            staged[name]!.values.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        } : []
        var stagedLog = historyLog
        var historyWrite: (any PreparedSave)?
        if isTrackingPersistentHistory {
            stagedLog.append(changes, recording: changes.history ?? PersistentHistoryRecording(), storeID: identifier)
            newMetadata[Self.historyTransactionNumberKey] = Int(stagedLog.lastTransactionNumber)
            historyWrite = try prepareHistoryWrite(stagedLog)
        }
        let write: any PreparedSave
        do {
            write = try prepareWrite(records: ordered, metadata: newMetadata)
        } catch {
            historyWrite?.abort()
            throw error
        }
        return StagedAtomicSave(write: write, historyWrite: historyWrite) { [self] in
            historyLog = stagedLog
            tables = staged
            orders.withLock { $0.byKey.removeAll() }
            contentVersion += 1
            AtomicStore.contentChanges.add(1, ordering: .releasing)
            recordCount = stagedCount
            metadata = newMetadata
        }
    }

    /// The predicate view of another record of this store, if the store holds it.
    func view(of id: ManagedObjectID) -> RecordView? {
        guard let record = cacheNode(for: id), let entity = model.entitiesByName[id.entityName] else { return nil }
        return RecordView(record: record, store: self, entity: entity)
    }
}

/// An atomic store's prepared save: the file write plus swapping in the staged records on commit.
///
/// With history, the history side file is renamed first and the store file last: the store's rename is the moment
/// the save happens, and a history file ahead of its store (a crash between the two) is cut back to the
/// transaction number the store's metadata names when it is next loaded.
private struct StagedAtomicSave: PreparedSave {
    let write: any PreparedSave
    let historyWrite: (any PreparedSave)?
    let apply: () -> Void

    func commit() throws {
        if let historyWrite {
            do {
                try historyWrite.commit()
            } catch {
                write.abort()
                throw error
            }
        }
        try write.commit()
        apply()
    }

    func abort() {
        historyWrite?.abort()
        write.abort()
    }
}

extension StoreFetchResult {
    /// Whether `lhs` sorts before `rhs` by the keys, then by object ID.
    static func precedes(_ lhs: StoreFetchResult, _ rhs: StoreFetchResult, by keys: [SortKey]) -> Bool {
        for (index, key) in keys.enumerated() {
            switch key.compare(lhs.sortValues[index], rhs.sortValues[index]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return lhs.objectID < rhs.objectID
    }
}

/// The store that keeps its objects in memory only (Core Data's `NSInMemoryStoreType`).
public final class InMemoryStore: AtomicStore, @unchecked Sendable {  // as AtomicStore
    public override class var storeType: PersistentStoreType { .inMemory }
    public override var writesFiles: Bool { false }
}
