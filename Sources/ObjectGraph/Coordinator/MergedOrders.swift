import Synchronization

/// The sorted orders of several atomic stores merged into one, kept for the next fetch that asks the same stores
/// for the same order.
///
/// Merging 100 stores' cursors for every limit-50 fetch costs a heap of 100 cursors; walking a merged order costs
/// the 50 matches. An order stays valid while every store in it is the same store object, at the same position
/// among the coordinator's stores, with the same contents (``SortedOrderStore/contentVersion``).
final class MergedOrder: KeptOrder, @unchecked Sendable {  // immutable once made
    /// What the order was built from: each store object, its position, its contents.
    struct Stamp: Equatable {
        let instanceNumber: UInt64
        let storeIndex: Int
        let contentVersion: UInt64
    }

    let stamps: [Stamp]
    /// The records in order, and the add-order position of each one's store.
    let views: [RecordView]
    let storeIndices: [Int32]
    /// The sort values of each record, prepared for comparing (`width` per record), for merging with other stores.
    let prepared: [SortValue]
    /// The order's sort keys.
    let keys: [SortKey]
    /// Sort values per record.
    var width: Int { keys.count }
    var lastUse: Int
    /// Columns of the attributes predicates read, in this order's positions.
    let columns: RowColumns

    init(stamps: [Stamp], views: [RecordView], entities: [EntityDescription], storeIndices: [Int32],
         prepared: [SortValue], sortKeys: [SortKey], lastUse: Int) {
        self.stamps = stamps
        self.views = views
        self.storeIndices = storeIndices
        self.prepared = prepared
        self.keys = sortKeys
        self.lastUse = lastUse
        self.columns = RowColumns(views: views, entities: entities)
    }

    /// Merges the stores' own sorted orders: by the sort keys, ties by store add order, then in each store's order.
    static func merge(_ orders: [(storeIndex: Int, order: SortedOrder)], sortKeys: [SortKey],
                      stamps: [Stamp], use: Int) -> MergedOrder {
        let width = sortKeys.count
        let total = orders.reduce(0) { $0 + $1.order.views.count }
        var views: [RecordView] = []
        var storeIndices: [Int32] = []
        var prepared: [SortValue] = []
        views.reserveCapacity(total)
        storeIndices.reserveCapacity(total)
        prepared.reserveCapacity(total * width)
        var positions = [Int](repeating: 0, count: orders.count)
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let (left, right) = (orders[a].order, orders[b].order)
            let (leftBase, rightBase) = (positions[a] * width, positions[b] * width)
            for (offset, key) in sortKeys.enumerated() {
                let order = left.prepared[leftBase + offset].compare(to: right.prepared[rightBase + offset])
                if order != .orderedSame { return key.ascending ? order == .orderedAscending : order == .orderedDescending }
            }
            return orders[a].storeIndex < orders[b].storeIndex
        }
        var heap = orders.indices.filter { !orders[$0].order.views.isEmpty }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            IndexHeap.siftDown(&heap, from: index, isAbove: precedes)
        }
        while let source = heap.first {
            let order = orders[source].order
            views.append(order.views[positions[source]])
            storeIndices.append(Int32(orders[source].storeIndex))
            prepared.append(contentsOf: order.prepared[(positions[source] * width)..<(positions[source] * width + width)])
            positions[source] += 1
            if positions[source] == orders[source].order.views.count {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            IndexHeap.siftDown(&heap, from: 0, isAbove: precedes)
        }
        var entities: [EntityDescription] = []
        for (_, order) in orders {
            for entity in order.entities where !entities.contains(where: { $0 === entity }) { entities.append(entity) }
        }
        return MergedOrder(stamps: stamps, views: views, entities: entities, storeIndices: storeIndices,
                           prepared: prepared, sortKeys: sortKeys, lastUse: use)
    }

    /// Walks the order, skipping records the predicate rejects, until `limit` matched (0: no limit).
    struct Cursor {
        let order: MergedOrder
        /// The order's records as results hand them out.
        let rows: OrderRows
        private var scan: PredicateScan
        let limit: Int
        private var position = 0
        private var matched = 0
        /// The matches passed or handed out so far.
        var matchCount: Int { matched }

        /// - Parameter objectIDColumn: as ``SortedOrderStore/makeCursor(_:key:objectIDColumn:)``.
        init(order: MergedOrder, predicate: ObjectPredicate?, limit: Int, objectIDColumn: Bool = false) throws {
            self.order = order
            let range = order.positions(matching: predicate)
            self.scan = try PredicateScan(predicate, columns: order.columns, wholeScan: limit == 0, range: range)
            self.limit = limit
            self.rows = OrderRows(views: order.views,
                                              objectIDs: objectIDColumn && limit == 0 ? order.columns.objectIDs() : nil)
        }

        /// Moves past up to `count` matches without making results; returns how many it passed. Without a
        /// predicate, every record matches and the walk is a jump.
        mutating func skip(_ count: Int) throws -> Int {
            var passed = 0
            let allowed = limit == 0 ? count : min(count, limit - matched)
            if !scan.hasPredicate {
                position = max(position, scan.range.lowerBound)
                passed = max(0, min(allowed, scan.range.upperBound - position))
                position += passed
            } else {
                passed = try scan.skipMatches(allowed, in: order.views, after: &position)
            }
            matched += passed
            return passed
        }

        /// The next match with its prepared sort values and its store's position in add order.
        mutating func next() throws -> (MergedFetchResult.Row, ArraySlice<SortValue>, Int)? {
            guard let index = try advance() else { return nil }
            let width = order.width
            return (.record(rows, index, includesValues: true),
                    order.prepared[(index * width)..<(index * width + width)], Int(order.storeIndices[index]))
        }

        /// The next match, without its sort values (when this order is the only source of a fetch).
        mutating func nextResult() throws -> MergedFetchResult? {
            guard let index = try advance() else { return nil }
            return MergedFetchResult(row: .record(rows, index, includesValues: true),
                                     storeIndex: Int(order.storeIndices[index]))
        }

        /// The position of the next match.
        private mutating func advance() throws -> Int? {
            guard limit == 0 || matched < limit,
                let index = try scan.nextMatch(in: order.views, after: &position)
            else { return nil }
            matched += 1
            return index
        }
    }
}

/// The coordinator's merged orders, by entity names and sort keys; at most ``limit``, least recently used first out.
final class MergedOrderCache: Sendable {
    static let limit = 8

    private struct State: ~Copyable {
        var orders: [SortedOrder.Key: MergedOrder] = [:]
        var use = 0
    }

    private let state = LockedValue(State())

    /// The merged order for `key` over `stores`, merged now if there is none or the stores changed.
    ///
    /// Built while holding the cache's lock, so concurrent fetches needing the same new order build it once.
    func order(for key: SortedOrder.Key, stamps: [MergedOrder.Stamp],
               build: (Int) throws -> MergedOrder) rethrows -> MergedOrder {
        try state.withLock { state in
            state.use += 1
            if let order = state.orders[key], order.stamps == stamps {
                order.lastUse = state.use
                return order
            }
            let order = try build(state.use)
            if state.orders[key] == nil, state.orders.count >= Self.limit,
                let oldest = state.orders.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.orders[oldest] = nil
            }
            state.orders[key] = order
            return order
        }
    }

    /// Forgets every order (the stores changed: orders of removed stores must not keep their records alive).
    func removeAll() {
        state.withLock { $0.orders.removeAll() }
    }
}
