import Foundation
import Synchronization

/// The family of stores that load the whole graph at once and write it as one unit (Core Data's
/// `NSAtomicStore`): the in-memory, XML and binary stores and custom file formats.
///
/// The base class keeps every object as a ``StoreRecord`` (a cache node) and executes fetches, counts and saves
/// over them. A custom format subclasses it and overrides:
/// - ``storeType`` (the name it registers under),
/// - ``PersistentStore/loadMetadata()`` (read the UUID and model hashes from the file, or call `freshMetadata()`),
/// - ``PersistentStore/load()`` (read the file and call ``addCacheNodes(_:)``),
/// - ``prepareWrite(records:metadata:)`` (encode the records, usually with ``AtomicFileWriter``) — omit it for a
///   read-only format and add the store with the `.readOnly` option.
open class AtomicStore: PersistentStore, @unchecked Sendable {  // reads change only `orders`, under its lock
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
    /// compare it.
    private(set) var contentVersion: UInt64 = 0

    /// Reads change nothing but the cached sort orders, which are guarded.
    open override class var allowsConcurrentReads: Bool { true }

    /// The records change only by a load or a save, which change ``contentVersion``.
    open override func contentToken() throws -> UInt64? { contentVersion }
    /// The next unused reference key (Core Data's XML `nextObjectID`).
    public var nextReferenceKey: Int64 = 1

    // MARK: Cache nodes

    /// Adds loaded records to the store's cache; used by ``PersistentStore/load()``.
    public func addCacheNodes(_ records: [StoreRecord]) {
        orders.withLock { $0.byKey.removeAll() }
        contentVersion += 1
        for record in records {
            let id = record.objectID
            if tables[id.entityName, default: [:]].updateValue(record, forKey: id.referenceKey) == nil {
                recordCount += 1
            }
            if id.referenceKey >= nextReferenceKey { nextReferenceKey = id.referenceKey + 1 }
        }
    }

    /// Every record, ordered by entity name and then reference key (a deterministic order for writing).
    public func cacheNodes() -> [StoreRecord] {
        tables.keys.sorted().flatMap { name in
            tables[name]!.values.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        }
    }

    /// The number of objects in the store.
    public var cacheNodeCount: Int { recordCount }

    /// The record of one object, if the store holds it.
    public func cacheNode(for objectID: ManagedObjectID) -> StoreRecord? {
        guard objectID.storeIdentifier == identifier else { return nil }
        return tables[objectID.entityName]?[objectID.referenceKey]
    }

    /// Whether saves write the records somewhere; `false` skips preparing them for ``prepareWrite(records:metadata:)``.
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

    /// The results of a request one at a time, in order: sorted fetches walk a cached sort order and stop as soon as
    /// `limit` objects matched, so a limit-50 fetch costs 50 predicate evaluations rather than a scan and a sort.
    ///
    /// - Parameter key: the request's order key, when the caller made it already (for many stores at once).
    /// - Parameter objectIDColumn: whether a walk over the whole order reads object IDs from a column of the order
    ///   (made by the first such walk) rather than from each view: for callers that make an object per result.
    func makeCursor(_ request: StoreFetchRequest, key: SortedOrder.Key? = nil, objectIDColumn: Bool = false) throws
        -> Cursor
    {
        let order = try sortedOrder(request, key: key ?? SortedOrder.Key(entityNames: request.entityNames,
                                                                         sortKeys: request.sortKeys))
        let wholeScan = request.limit == 0
        let scan = try PredicateScan(request.predicate, columns: order.columns, wholeScan: wholeScan)
        let rows = OrderRows(views: order.views,
                             objectIDs: objectIDColumn && wholeScan ? order.columns.objectIDs() : nil)
        return Cursor(order: order, rows: rows, scan: scan, limit: request.limit,
                      includesValues: request.includesValues)
    }

    /// A view of every record of the entities, by reference key (the order of object IDs within one store).
    private func views(of entityNames: Set<String>) -> [RecordView] {
        let entities = model.entitiesByName
        var views: [RecordView] = []
        for name in entityNames {
            guard let table = tables[name], let entity = entities[name] else { continue }
            views.reserveCapacity(views.count + table.count)
            for record in table.values { views.append(RecordView(record: record, store: self, entity: entity)) }
        }
        views.sort { $0.record.objectID.referenceKey < $1.record.objectID.referenceKey }
        return views
    }

    /// The records of the request's entities in the order of its sort keys, ties by reference key (no sort keys:
    /// by reference key); cached.
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
        let (positions, prepared) = try SortKey.sortedPositions(views, by: keys, value: Self.sortValue)
        var sortedPrepared: [SortValue] = []
        sortedPrepared.reserveCapacity(prepared.count)
        for position in positions { sortedPrepared.append(contentsOf: prepared[(position * width)..<(position * width + width)]) }
        let entities = request.entityNames.sorted().compactMap { model.entitiesByName[$0] }
        return SortedOrder(views: positions.map { views[$0] }, entities: entities, keys: keys,
                           prepared: sortedPrepared, lastUse: use)
    }

    /// A sort key's value for a record: a plain attribute is read straight from the record, key paths through the
    /// view.
    static func sortValue(of view: RecordView, _ key: SortKey) throws -> Any? {
        if key.isPlainKey, view.entity.attributesByName[key.keyPath] != nil { return view.record[key.keyPath] }
        return try key.value(of: view)
    }

    open override func count(_ request: StoreFetchRequest) throws -> Int {
        guard let predicate = request.predicate else {
            return request.entityNames.reduce(0) { $0 + (tables[$1]?.count ?? 0) }
        }
        // The cached order of the entities (by reference key) holds the views already made.
        var cursor = try makeCursor(StoreFetchRequest(entity: request.entity, entityNames: request.entityNames,
                                                      predicate: predicate, sortKeys: [], limit: 0,
                                                      includesValues: false))
        var count = 0
        while try cursor.skip() { count += 1 }
        return count
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
        let write = try prepareWrite(records: ordered, metadata: newMetadata)
        return StagedAtomicSave(write: write) { [self] in
            tables = staged
            orders.withLock { $0.byKey.removeAll() }
            contentVersion += 1
            recordCount = stagedCount
            metadata = newMetadata
        }
    }

    static func sendable(_ value: Any?) -> (any Sendable)? {
        value.map(assumeSendable)
    }

    /// The view of a record that predicates evaluate against: relationships resolve to other records of the store.
    ///
    /// A class, so the cached sort orders hand views around with one reference count each; it never outlives the
    /// request (or the cached order inside the store) that made it, hence the unsafe reference to the store.
    final class RecordView: PredicateEvaluable {
        let record: StoreRecord
        unowned(unsafe) let store: AtomicStore
        let entity: EntityDescription

        init(record: StoreRecord, store: AtomicStore, entity: EntityDescription) {
            self.record = record
            self.store = store
            self.entity = entity
        }

        func predicateValue(forKey key: String) throws -> Any? {
            let layout = entity.layout
            guard let slot = layout.slot(forKey: key) else { throw unknownKeyError(key, entityName: entity.name) }
            switch layout.kinds[slot] {
            case .attribute, .other:
                return record[key]
            case .toMany:
                let ids = record[key] as? [ManagedObjectID] ?? []
                return ids.compactMap { store.view(of: $0) }
            case .toOne:
                guard let id = record[key] as? ManagedObjectID else { return nil }
                return store.view(of: id)
            }
        }

        var predicateIdentity: (any Hashable & Sendable)? { record.objectID }
    }

    /// The predicate view of another record of this store, if the store holds it.
    func view(of id: ManagedObjectID) -> RecordView? {
        guard let record = cacheNode(for: id), let entity = model.entitiesByName[id.entityName] else { return nil }
        return RecordView(record: record, store: self, entity: entity)
    }
}

extension AtomicStore {
    /// Records in one order, with their sort values prepared for comparing (`keys.count` values per record).
    /// A class: a cache hit hands it out and marks its use without copying.
    final class SortedOrder: @unchecked Sendable {  // immutable but `lastUse`, which changes under the store's lock
        struct Key: Hashable {
            let entityNames: Set<String>
            let sortKeys: [SortKey]
            private let hash: Int

            init(entityNames: Set<String>, sortKeys: [SortKey]) {
                self.entityNames = entityNames
                self.sortKeys = sortKeys
                var hasher = Hasher()
                hasher.combine(entityNames)
                for key in sortKeys {
                    hasher.combine(key.keyPath)
                    hasher.combine(key.ascending)
                    hasher.combine(key.comparison)
                }
                hash = hasher.finalize()
            }

            static func == (lhs: Key, rhs: Key) -> Bool {
                lhs.hash == rhs.hash && lhs.sortKeys == rhs.sortKeys && lhs.entityNames == rhs.entityNames
            }

            func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        }

        let views: [RecordView]
        /// The entities whose records the order holds.
        let entities: [EntityDescription]
        let keys: [SortKey]
        let prepared: [SortValue]
        var lastUse: Int

        /// Columns of the attributes predicates read, in this order's positions.
        let columns: RowColumns

        init(views: [RecordView], entities: [EntityDescription], keys: [SortKey], prepared: [SortValue],
             lastUse: Int) {
            self.views = views
            self.entities = entities
            self.keys = keys
            self.prepared = prepared
            self.lastUse = lastUse
            self.columns = RowColumns(views: views, entities: entities)
        }
    }

    /// Columns of the attributes predicates read over a sequence of records (a sorted order), made by the first scan
    /// that needs them, and the row tests made of them: a scan then reads typed arrays instead of each record's
    /// dictionary.
    final class RowColumns: @unchecked Sendable {  // the views are immutable; the state changes under its lock
        private let views: [RecordView]
        private let entities: [EntityDescription]
        private let state = LockedValue(State())

        private struct State: ~Copyable {
            var columns: [String: PredicateColumn] = [:]
            var tests: [ObjectPredicate: RowTest] = [:]
            var objectIDs: [ManagedObjectID]?
        }

        /// The object IDs of the records, in the order's positions (made by the first call).
        func objectIDs() -> [ManagedObjectID] {
            state.withLock { state in
                if let made = state.objectIDs { return made }
                let made = views.map(\.record.objectID)
                state.objectIDs = made
                return made
            }
        }

        /// At most this many columns and row tests are kept (past the limit, further predicates are evaluated record
        /// by record; row tests are all dropped when full).
        static let columnLimit = 16
        static let rowTestLimit = 64

        init(views: [RecordView], entities: [EntityDescription]) {
            self.views = views
            self.entities = entities
        }

        /// The predicate as a test of positions, reading columns rather than records; `nil` when it cannot be (a
        /// part other than comparisons of attributes with constants), when a column it needs is not made and
        /// `makingColumns` is false, or when as many columns are kept as may be.
        func rowTest(for predicate: ObjectPredicate, makingColumns: Bool) throws -> RowTest? {
            try state.withLock { state in
                if let test = state.tests[predicate] { return test }
                guard let keys = predicate.rowKeys else { return nil }
                var columns: [String: PredicateColumn] = [:]
                for key in keys {
                    if let column = state.columns[key] {
                        columns[key] = column
                        continue
                    }
                    guard makingColumns, state.columns.count < Self.columnLimit, isAttribute(key) else { return nil }
                    let views = self.views
                    let column = PredicateColumn(rowCount: views.count) { row in views[row].record[key] }
                    state.columns[key] = column
                    columns[key] = column
                }
                guard let test = try predicate.rowTest(columns: columns) else { return nil }
                if state.tests.count >= Self.rowTestLimit { state.tests.removeAll() }
                state.tests[predicate] = test
                return test
            }
        }

        /// How many columns are made (for tests).
        var columnCount: Int { state.withLock { $0.columns.count } }

        /// Whether a key is a stored attribute of every entity (what records give predicates as it is).
        private func isAttribute(_ key: String) -> Bool {
            entities.allSatisfy { entity in
                let layout = entity.layout
                guard let slot = layout.slot(forKey: key), case .attribute = layout.kinds[slot] else { return false }
                return true
            }
        }
    }

    /// How a walk over an order tests its records: the compiled predicate record by record, or a row test reading
    /// columns (see ``RowColumns``).
    ///
    /// A scan of the whole order (no limit) makes the columns it needs at once. A walk that may stop early uses
    /// columns only if they exist, and makes them once it has tested ``columnThreshold`` records one by one (a
    /// limited walk over a predicate that matches little scans as much as a whole scan).
    struct PredicateScan {
        let predicate: CompiledPredicate?
        private var rows: RowTest?
        private var makeRows: (() throws -> RowTest?)?
        private var tested = 0
        static let columnThreshold = 4096

        init(_ predicate: ObjectPredicate?, columns: RowColumns, wholeScan: Bool) throws {
            self.predicate = try predicate?.compiled()
            guard let predicate else { return }
            rows = try columns.rowTest(for: predicate, makingColumns: wholeScan)
            if rows == nil, !wholeScan {
                makeRows = { try columns.rowTest(for: predicate, makingColumns: true) }
            }
        }

        /// The position of the first view from `position` on that the predicate accepts (any, without a
        /// predicate); `position` moves past it. Checks for cancellation every 4,096 views, so a deadline stops a
        /// long scan.
        mutating func nextMatch(in views: [RecordView], after position: inout Int) throws -> Int? {
            while position < views.count {
                let index = position
                position += 1
                if index & 0xFFF == 0xFFF { try StoreCancellation.checkCancellation() }
                if let rows {
                    if try rows(index) { return index }
                    continue
                }
                guard let predicate else { return index }
                if let make = makeRows {
                    tested += 1
                    if tested == Self.columnThreshold {
                        makeRows = nil
                        rows = try make()
                        if rows != nil {
                            position = index
                            continue
                        }
                    }
                }
                if try predicate.evaluate(with: views[index]) { return index }
            }
            return nil
        }
    }

    /// What a fetch over a sorted order hands out: the order's record views and, for a walk over the whole order,
    /// the object IDs in the same positions (read in sequence rather than from each view).
    ///
    /// One instance per fetch, shared by its results and kept by the faults made from them until they fire (so an
    /// unfired fault keeps the records of that order alive). Only `record`, an immutable value, is read from a view
    /// then, never its store, which may be gone.
    final class OrderRows: @unchecked Sendable {  // immutable
        let views: [RecordView]
        private let objectIDs: [ManagedObjectID]?

        init(views: [RecordView], objectIDs: [ManagedObjectID]?) {
            self.views = views
            self.objectIDs = objectIDs
        }

        /// The ID of the object at a position.
        func objectID(at index: Int) -> ManagedObjectID {
            if let objectIDs { return objectIDs[index] }
            return views[index].record.objectID
        }

        /// The record at a position.
        func record(at index: Int) -> StoreRecord { views[index].record }
    }

    /// Walks a sorted order, skipping records the predicate rejects, until `limit` matched (0: no limit).
    struct Cursor {
        let order: SortedOrder
        /// The order's records as results hand them out.
        let rows: OrderRows
        private var scan: PredicateScan
        let limit: Int
        let includesValues: Bool
        private var position = 0
        private var matched = 0

        init(order: SortedOrder, rows: OrderRows, scan: PredicateScan, limit: Int, includesValues: Bool) {
            self.order = order
            self.rows = rows
            self.scan = scan
            self.limit = limit
            self.includesValues = includesValues
        }

        /// The position in the order of the next match, or `nil` when the walk is over.
        private mutating func advance() throws -> Int? {
            guard limit == 0 || matched < limit,
                let index = try scan.nextMatch(in: order.views, after: &position)
            else { return nil }
            matched += 1
            return index
        }

        /// The result at a position, with its raw sort values.
        private func result(at index: Int) throws -> StoreFetchResult {
            let view = order.views[index]
            return StoreFetchResult(
                objectID: view.record.objectID,
                sortValues: try order.keys.map { try AtomicStore.sendable(AtomicStore.sortValue(of: view, $0)) },
                record: includesValues ? view.record : nil)
        }

        /// Moves past the next match; false when there is none.
        mutating func skip() throws -> Bool { try advance() != nil }

        /// The next result in order.
        mutating func next() throws -> StoreFetchResult? {
            guard let index = try advance() else { return nil }
            return try result(at: index)
        }

        /// The next match's position with its prepared sort values, for merging the results of several stores.
        mutating func nextPrepared() throws -> (Int, ArraySlice<SortValue>)? {
            guard let index = try advance() else { return nil }
            let width = order.keys.count
            return (index, order.prepared[(index * width)..<(index * width + width)])
        }

        /// The next match's position in the order (and in ``rows``).
        mutating func nextPosition() throws -> Int? { try advance() }
    }
}

/// An atomic store's prepared save: the file write plus swapping in the staged records on commit.
private struct StagedAtomicSave: PreparedSave {
    let write: any PreparedSave
    let apply: () -> Void

    func commit() throws {
        try write.commit()
        apply()
    }

    func abort() { write.abort() }
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
