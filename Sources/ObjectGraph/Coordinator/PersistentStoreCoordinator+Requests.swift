import Foundation

/// A fetch result merged across stores: which store, and the object's record or what the store returned.
struct MergedFetchResult {
    /// What a store gave for the object.
    enum Row {
        /// A record of a store that keeps sorted orders, by its position in the rows of the fetch's order (no copy
        /// of the record); `includesValues` false: the request wanted the ID only.
        case record(OrderRows, Int, includesValues: Bool)
        /// What another store returned, by position in its results (shared by all of them: no box per result).
        case result(StoreResults, Int)
    }

    /// One store's fetch results, shared by the merged results that point into them.
    ///
    /// A fetch's caller hands each record over to its object with ``takeRecord(at:)`` rather than copying it: the
    /// records were written long before (a large fetch's are out of the cache by then), and a copy's retain, and
    /// the release when the results go away, each cost a cache miss per record.
    final class StoreResults: @unchecked Sendable {  // changed only by the one fetch that made it, on its thread
        static let none = StoreResults([])
        private(set) var results: [StoreFetchResult]

        init(_ results: [StoreFetchResult]) {
            self.results = results
        }

        /// Moves a result's record out (later reads of it see none).
        func takeRecord(at index: Int) -> StoreRecord? {
            results[index].record.take()
        }
    }

    /// ``record``, moved out of the store's results rather than copied: for the caller that makes the one object
    /// (or the one record) of this result.
    func takeRecord() -> StoreRecord? {
        switch row {
        case .record(let rows, let index, let includesValues): includesValues ? rows.record(at: index) : nil
        case .result(let results, let index): results.takeRecord(at: index)
        }
    }

    var row: Row
    var storeIndex: Int

    /// The object's ID.
    var objectID: ManagedObjectID {
        switch row {
        case .record(let rows, let index, _): rows.objectID(at: index)
        case .result(let results, let index): results.results[index].objectID
        }
    }

    /// The object's record, when the store handed it over.
    var record: StoreRecord? {
        switch row {
        case .record(let rows, let index, let includesValues): includesValues ? rows.record(at: index) : nil
        case .result(let results, let index): results.results[index].record
        }
    }
}

/// One source of results for ``PersistentStoreCoordinator/merge(_:sortKeys:offset:limit:)``: the cursor of a store
/// that keeps sorted orders, the merged order of several such stores, or the array another store returned.
struct MergeSource {
    /// The store's position in add order (unused for a merged order, whose results each tell their own).
    private let storeIndex: Int
    private var cursor: SortedOrder.Cursor?
    private var mergedCursor: MergedOrder.Cursor?
    private var results: MergedFetchResult.StoreResults
    private var prepared: [SortValue]
    private let width: Int
    private var position = 0

    init(storeIndex: Int, cursor: SortedOrder.Cursor) {
        self.storeIndex = storeIndex
        self.cursor = cursor
        self.results = .none
        self.prepared = []
        self.width = 0
    }

    init(merged cursor: MergedOrder.Cursor) {
        self.storeIndex = 0
        self.mergedCursor = cursor
        self.results = .none
        self.prepared = []
        self.width = 0
    }

    init(storeIndex: Int, results: [StoreFetchResult], sortKeys: [SortKey]) {
        self.storeIndex = storeIndex
        self.cursor = nil
        self.results = MergedFetchResult.StoreResults(results)
        self.width = sortKeys.count
        var prepared: [SortValue] = []
        if !sortKeys.isEmpty {
            prepared.reserveCapacity(results.count * sortKeys.count)
            // By position: a loop over the results would copy each one (its record) to read its sort values.
            for index in results.indices {
                for (position, key) in sortKeys.enumerated() {
                    prepared.append(SortValue(results[index].sortValues[position], key.comparison))
                }
            }
        }
        self.prepared = prepared
    }

    /// For a cursor without a limit, the matches it passed or handed out and those left after them (it walks
    /// them); 0 for results (their store counted them).
    mutating func countOfCursor() throws -> Int {
        if cursor != nil { return cursor!.matchCount + (try cursor!.skip(Int.max)) }
        if mergedCursor != nil { return mergedCursor!.matchCount + (try mergedCursor!.skip(Int.max)) }
        return 0
    }

    /// Moves past up to `count` results without making them; returns how many it passed.
    mutating func skip(_ count: Int) throws -> Int {
        if cursor != nil { return try cursor!.skip(count) }
        if mergedCursor != nil { return try mergedCursor!.skip(count) }
        let passed = max(0, min(count, results.results.count - position))
        position += passed
        return passed
    }

    /// The next result with its prepared sort values and its store's position in add order.
    mutating func next() throws -> (MergedFetchResult.Row, ArraySlice<SortValue>, Int)? {
        if cursor != nil {
            guard let (index, values) = try cursor!.nextPrepared() else { return nil }
            return (.record(cursor!.rows, index, includesValues: cursor!.includesValues), values, storeIndex)
        }
        if mergedCursor != nil { return try mergedCursor!.next() }
        guard position < results.results.count else { return nil }
        defer { position += 1 }
        return (.result(results, position), prepared[(position * width)..<(position * width + width)], storeIndex)
    }

    /// Appends the source's next results (without sort values) to `merged` until it holds `limit` (0: no limit) or
    /// the source runs out: the walk of a merge of one source. A sorted order's matches are found in one walk,
    /// then made results.
    mutating func appendResults(to merged: inout [MergedFetchResult], limit: Int) throws {
        guard cursor != nil else {
            while limit == 0 || merged.count < limit, let result = try nextResult() { merged.append(result) }
            return
        }
        var positions: [Int] = []
        try cursor!.appendPositions(limit == 0 ? Int.max : limit - merged.count, to: &positions)
        let (rows, includesValues) = (cursor!.rows, cursor!.includesValues)
        merged.reserveCapacity(merged.count + positions.count)
        for index in positions {
            merged.append(MergedFetchResult(row: .record(rows, index, includesValues: includesValues),
                                            storeIndex: storeIndex))
        }
    }

    /// The next result and its store's position in add order, without sort values (a merge of one source).
    mutating func nextResult() throws -> MergedFetchResult? {
        if cursor != nil {
            guard let index = try cursor!.nextPosition() else { return nil }
            return MergedFetchResult(row: .record(cursor!.rows, index, includesValues: cursor!.includesValues),
                                     storeIndex: storeIndex)
        }
        if mergedCursor != nil { return try mergedCursor!.nextResult() }
        guard position < results.results.count else { return nil }
        defer { position += 1 }
        return MergedFetchResult(row: .result(results, position), storeIndex: storeIndex)
    }
}

/// A store a request reaches.
struct FetchTarget {
    /// The store's position in add order.
    let index: Int
    let store: PersistentStore
    /// The request's entity names that the store's configuration holds.
    let entityNames: Set<String>
    /// The store, when it keeps sorted orders that the coordinator walks itself (looked up once per target).
    let sortedOrders: (any SortedOrderStore)?

    init(index: Int, store: PersistentStore, entityNames: Set<String>) {
        self.index = index
        self.store = store
        self.entityNames = entityNames
        self.sortedOrders = store as? any SortedOrderStore
    }
}

/// The stores a request reaches, in add order, and the same split by whether the coordinator walks their sorted
/// orders itself.
struct FetchTargets {
    let all: [FetchTarget]
    /// The stores that keep sorted orders.
    let ordered: [FetchTarget]
    /// The others.
    let others: [FetchTarget]

    init(_ all: [FetchTarget]) {
        self.all = all
        ordered = all.filter { $0.sortedOrders != nil }
        others = all.filter { $0.sortedOrders == nil }
    }
}

extension PersistentStoreCoordinator {
    /// The stores a request reaches, in add order, each with the entity names its configuration holds.
    func targets(entityNames: [String], affectedStores: [PersistentStore]?) -> [FetchTarget] {
        splitTargets(entityNames: entityNames, affectedStores: affectedStores).all
    }

    /// ``targets(entityNames:affectedStores:)`` split once: a fetch over 1,000 stores filtered the list and walked it
    /// for each request, copying every target (a retain and a release of each of its references).
    func splitTargets(entityNames: [String], affectedStores: [PersistentStore]?) -> FetchTargets {
        withState {
            if affectedStores == nil, let cached = targetCache[entityNames] { return cached }
            var targets: [FetchTarget] = []
            for (index, store) in persistentStores.enumerated() {
                if let affectedStores, !affectedStores.contains(where: { $0 === store }) { continue }
                let held = Set(entityNames.filter { store.holds(entityNamed: $0) })
                if !held.isEmpty { targets.append(FetchTarget(index: index, store: store, entityNames: held)) }
            }
            let split = FetchTargets(targets)
            if affectedStores == nil { targetCache[entityNames] = split }
            return split
        }
    }

    /// Runs a fetch on every store that can hold the entity and merges the sorted results.
    ///
    /// Results are the union over stores, sorted by the sort keys, ties broken by store add order and then object
    /// ID, with `offset` and `limit` applied to the union. `makesObjects`: the caller makes a managed object per
    /// result (stores that keep sorted orders then read object IDs from a column of their order in a whole scan).
    func fetch(
        entity: EntityDescription, entityNames: [String], predicate: ObjectPredicate?, sortKeys: [SortKey],
        offset: Int, limit: Int, affectedStores: [PersistentStore]?, includesValues: Bool,
        propertiesToFetch: [String]? = nil, makesObjects: Bool = false
    ) throws -> [MergedFetchResult] {
        try performReading {
            var (sources, _) = try fetchSources(
                entity: entity, entityNames: entityNames, predicate: predicate, sortKeys: sortKeys, offset: offset,
                limit: limit, affectedStores: affectedStores, includesValues: includesValues,
                propertiesToFetch: propertiesToFetch, makesObjects: makesObjects, countsAll: false)
            return try Self.merge(&sources, sortKeys: sortKeys, offset: offset, limit: limit)
        }
    }

    /// ``fetch(entity:entityNames:predicate:sortKeys:offset:limit:affectedStores:includesValues:propertiesToFetch:makesObjects:)``
    /// and how many objects match without the offset and limit, from one reading of the stores.
    ///
    /// A paged fetch's total costs the walk of the rest of the matches in stores that keep sorted orders (their
    /// cursors go on where the page stopped) and a count in the others that returned a full page; a count of its own
    /// walked the same range of the same order again, after finding the order, the range and the predicate's test
    /// again (a quarter of the daemon's `SessionsAt`, whose total is counted anew at every moment).
    func fetchWithTotal(
        entity: EntityDescription, entityNames: [String], predicate: ObjectPredicate?, sortKeys: [SortKey],
        offset: Int, limit: Int, affectedStores: [PersistentStore]?, includesValues: Bool,
        propertiesToFetch: [String]? = nil
    ) throws -> (results: [MergedFetchResult], total: Int) {
        try performReading {
            var (sources, total) = try fetchSources(
                entity: entity, entityNames: entityNames, predicate: predicate, sortKeys: sortKeys, offset: offset,
                limit: limit, affectedStores: affectedStores, includesValues: includesValues,
                propertiesToFetch: propertiesToFetch, makesObjects: false, countsAll: true)
            let results = try Self.merge(&sources, sortKeys: sortKeys, offset: offset, limit: limit)
            for index in sources.indices { total += try sources[index].countOfCursor() }
            return (results, total)
        }
    }

    /// The sources a fetch merges: a cursor over the merged order of the stores that keep sorted orders (when there
    /// are several), a cursor over each other such store, the results of every other store. With `countsAll`, the
    /// cursors have no limit (so that they can count on after the page), and the stores that return results are
    /// counted: the sum of those counts comes back with the sources.
    private func fetchSources(
        entity: EntityDescription, entityNames: [String], predicate: ObjectPredicate?, sortKeys: [SortKey],
        offset: Int, limit: Int, affectedStores: [PersistentStore]?, includesValues: Bool,
        propertiesToFetch: [String]?, makesObjects: Bool, countsAll: Bool
    ) throws -> (sources: [MergeSource], counted: Int) {
        let targets = splitTargets(entityNames: entityNames, affectedStores: affectedStores)
        let perStoreLimit = limit > 0 ? offset + limit : 0
        let cursorLimit = countsAll ? 0 : perStoreLimit
        var sources: [MergeSource] = []
        var counted = 0
        // Several stores that keep sorted orders, in a sorted fetch: one merged order, kept between fetches,
        // stands for them all.
        let usesMergedOrder = targets.ordered.count > 1 && !sortKeys.isEmpty && propertiesToFetch == nil
        if usesMergedOrder {
            let merged = try mergedOrder(
                entity: entity, entityNames: entityNames, sortKeys: sortKeys, targets: targets.ordered)
            let cursor = try MergedOrder.Cursor(
                order: merged, predicate: predicate, limit: cursorLimit, objectIDColumn: makesObjects)
            sources.append(MergeSource(merged: cursor))
        }
        var orderKey: SortedOrder.Key?
        for target in usesMergedOrder ? targets.others : targets.all {
            let (index, store, names) = (target.index, target.store, target.entityNames)
            // Such stores hold every record in memory: handing them over costs nothing and saves faulting.
            let withValues = includesValues || (target.sortedOrders != nil && propertiesToFetch == nil)
            var request = StoreFetchRequest(
                entity: entity, entityNames: names, predicate: predicate, sortKeys: sortKeys, limit: perStoreLimit,
                propertiesToFetch: propertiesToFetch, includesValues: withValues)
            if let orders = target.sortedOrders {
                if orderKey?.entityNames != names {
                    orderKey = SortedOrder.Key(entityNames: names, sortKeys: sortKeys)
                }
                request.limit = cursorLimit
                let cursor = try orders.makeCursor(request, key: orderKey, objectIDColumn: makesObjects)
                sources.append(MergeSource(storeIndex: index, cursor: cursor))
            } else {
                let results = try store.serializingReads { try store.fetch(request) }
                if countsAll {
                    // Fewer results than asked for are all there are.
                    if perStoreLimit == 0 || results.count < perStoreLimit {
                        counted += results.count
                    } else {
                        var all = request
                        all.sortKeys = []
                        all.limit = 0
                        all.includesValues = false
                        counted += try store.serializingReads { try store.count(all) }
                    }
                }
                // A store without results takes no part (one source left is merged without a heap).
                if !results.isEmpty {
                    sources.append(MergeSource(storeIndex: index, results: results, sortKeys: sortKeys))
                }
            }
        }
        return (sources, counted)
    }

    /// What kept results over stores that keep sorted orders depend on: each store object, its position, its
    /// contents.
    static func stamps(of orderTargets: [FetchTarget]) -> [MergedOrder.Stamp] {
        // Sized once and read in place: a fetch and its count take the stamps of every store (100 in the daemon's
        // benchmark) up to three times, and growing the array and copying each target showed in profiles.
        var stamps: [MergedOrder.Stamp] = []
        stamps.reserveCapacity(orderTargets.count)
        for index in orderTargets.indices {
            guard let store = orderTargets[index].sortedOrders else { continue }
            stamps.append(
                MergedOrder.Stamp(
                    instanceNumber: store.instanceNumber, storeIndex: orderTargets[index].index,
                    contentVersion: store.contentVersion))
        }
        return stamps
    }

    /// The merged sorted order of the records of several stores that keep sorted orders, from the cache or merged
    /// now.
    private func mergedOrder(
        entity: EntityDescription, entityNames: [String], sortKeys: [SortKey], targets: [FetchTarget]
    ) throws -> MergedOrder {
        let stamps = Self.stamps(of: targets)
        let key = SortedOrder.Key(entityNames: Set(entityNames), sortKeys: sortKeys)
        return try mergedOrders.order(for: key, stamps: stamps) { use in
            var orderKey: SortedOrder.Key?
            let orders = try targets.compactMap { target -> (storeIndex: Int, order: SortedOrder)? in
                guard let store = target.sortedOrders else { return nil }
                let names = target.entityNames
                if orderKey?.entityNames != names {
                    orderKey = SortedOrder.Key(entityNames: names, sortKeys: sortKeys)
                }
                let request = StoreFetchRequest(entity: entity, entityNames: names, predicate: nil, sortKeys: sortKeys,
                                                limit: 0, includesValues: true)
                return (storeIndex: target.index, order: try store.sortedOrder(request, key: orderKey!))
            }
            return MergedOrder.merge(orders, sortKeys: sortKeys, stamps: stamps, use: use)
        }
    }

    /// Merges the sorted results of several stores: by the sort keys, ties by store add order and then in each
    /// store's own order (object ID), skipping `offset` and stopping after `limit` (0: no limit).
    ///
    /// Each store is asked for its next result only when the previous one was taken, so a limit-50 fetch over 100
    /// stores takes about 150 results from the stores rather than 5,000.
    static func merge(_ sources: inout [MergeSource], sortKeys: [SortKey], offset: Int, limit: Int) throws
        -> [MergedFetchResult]
    {
        var merged: [MergedFetchResult] = []
        var skipped = 0
        func take(_ row: MergedFetchResult.Row, from storeIndex: Int) -> Bool {
            if skipped < offset {
                skipped += 1
            } else {
                merged.append(MergedFetchResult(row: row, storeIndex: storeIndex))
            }
            return limit == 0 || merged.count < limit
        }
        if sortKeys.isEmpty || sources.count == 1 {
            // Store add order, then each store's own order (one source: its order is the merged one).
            for index in sources.indices {
                skipped += try sources[index].skip(offset - skipped)
                guard limit == 0 || merged.count < limit else { break }
                try sources[index].appendResults(to: &merged, limit: limit)
                if limit > 0, merged.count == limit { return merged }
            }
            return merged
        }
        // A min-heap of source positions, ordered by each source's next result.
        var heads: [MergedFetchResult.Row?] = Array(repeating: nil, count: sources.count)
        var headValues: [ArraySlice<SortValue>] = Array(repeating: [], count: sources.count)
        var headStores: [Int] = Array(repeating: 0, count: sources.count)
        var heap: [Int] = []
        heap.reserveCapacity(sources.count)
        for index in sources.indices {
            if let (result, values, storeIndex) = try sources[index].next() {
                heads[index] = result
                headValues[index] = values
                headStores[index] = storeIndex
                heap.append(index)
            }
        }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let (left, right) = (headValues[a], headValues[b])
            for (position, key) in sortKeys.enumerated() {
                let order = left[left.startIndex + position].compare(to: right[right.startIndex + position])
                if order != .orderedSame { return key.ascending ? order == .orderedAscending : order == .orderedDescending }
            }
            return headStores[a] < headStores[b]
        }
        func siftDown(_ start: Int) { IndexHeap.siftDown(&heap, from: start, isAbove: precedes) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let source = heap.first {
            guard take(heads[source]!, from: headStores[source]) else { break }
            // One source left (often: one merged order of every store that keeps sorted orders): the rest of the offset is passed
            // in that source's order without making its results.
            if heap.count == 1, skipped < offset { skipped += try sources[source].skip(offset - skipped) }
            if let (result, values, storeIndex) = try sources[source].next() {
                heads[source] = result
                headValues[source] = values
                headStores[source] = storeIndex
            } else {
                heads[source] = nil
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
        return merged
    }

    /// Counts matching objects over every store that can hold the entity.
    func count(entity: EntityDescription, entityNames: [String], predicate: ObjectPredicate?,
               affectedStores: [PersistentStore]?) throws -> Int {
        try performReading {
            let targets = splitTargets(entityNames: entityNames, affectedStores: affectedStores)
            func count(_ target: FetchTarget) throws -> Int {
                let request = StoreFetchRequest(entity: entity, entityNames: target.entityNames, predicate: predicate,
                                                sortKeys: [], limit: 0, includesValues: false)
                return try target.store.serializingReads { try target.store.count(request) }
            }
            // Several stores that keep sorted orders: their sum is kept until one of them changes (their content
            // version says when).
            let kept = targets.ordered
            guard kept.count > 1, predicate?.callsVolatileFunction != true else {
                return try targets.all.reduce(0) { try $0 + count($1) }
            }
            let stamps = Self.stamps(of: kept)
            let key = CountCache.Key(entityName: entity.name, entityNames: entityNames, predicate: predicate)
            let keptCount: Int
            if let cached = counts.count(for: key, stamps: stamps) {
                keptCount = cached
            } else if let predicate,
                let ranged = try rangedCount(
                    entity: entity, entityNames: entityNames, predicate: predicate, targets: kept)
            {
                keptCount = ranged
                counts.keep(keptCount, for: key, stamps: stamps)
            } else {
                keptCount = try kept.reduce(0) { try $0 + count($1) }
                counts.keep(keptCount, for: key, stamps: stamps)
            }
            return try targets.others.reduce(keptCount) { try $0 + count($1) }
        }
    }

    /// The count of a predicate that bounds an attribute (`start <= $NOW AND end > $NOW`) over several stores that
    /// keep sorted orders: the merged order by that attribute, walked over the range that can match (see
    /// `OrderRange.narrowest(for:order:)`), rather than a scan of every store. Nil when no bounded attribute
    /// narrows the walk.
    private func rangedCount(
        entity: EntityDescription, entityNames: [String], predicate: ObjectPredicate, targets: [FetchTarget]
    ) throws -> Int? {
        let narrowest = OrderRange.narrowest(for: predicate) { key in
            try? mergedOrder(entity: entity, entityNames: entityNames, sortKeys: [key], targets: targets)
        }
        guard let narrowest else { return nil }
        var cursor = try MergedOrder.Cursor(order: narrowest, predicate: predicate, limit: 0)
        return try cursor.skip(Int.max)
    }

    /// The record of an object from its store; `nil` if the store is gone or no longer holds it.
    func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        try performReading {
            guard let identifier = objectID.storeIdentifier, let store = persistentStore(withIdentifier: identifier)
            else { return nil }
            return try store.serializingReads { try store.record(for: objectID) }
        }
    }

    /// The records of several objects from their stores, in the order of `objectIDs`: `nil` for an object whose
    /// store is gone or no longer holds it. Each store is asked once. Without `toManyLists`, stores that can leave
    /// out the destinations of to-many relationships do (the records say so: ``StoreRecord/omitsToManyLists``).
    ///
    /// The IDs go to their stores by runs of IDs sharing their names (one store's IDs of one entity), and a store's
    /// records are matched to the IDs in step, as stores return them in the order asked as a rule (by key): the
    /// records came back in a dictionary by ID, and grouping the IDs hashed each one's store identifier, together a
    /// fifth of filling a batch of faults (perf). Records out of step are matched through a table.
    func records(for objectIDs: [ManagedObjectID], toManyLists: Bool = true) throws -> [StoreRecord?] {
        try performReading {
            var result = [StoreRecord?].nils(count: objectIDs.count)
            var groups: [(identifier: String, positions: [Int])] = []
            var last: (names: ObjectIdentifier, group: Int)?
            for position in objectIDs.indices {
                let names = objectIDs[position].namesIdentity
                if let last, last.names == names {
                    groups[last.group].positions.append(position)
                    continue
                }
                guard let identifier = objectIDs[position].storeIdentifier else { continue }
                let group: Int
                if let known = groups.firstIndex(where: { $0.identifier == identifier }) {
                    group = known
                } else {
                    groups.append((identifier, []))
                    group = groups.count - 1
                }
                groups[group].positions.append(position)
                last = (names, group)
            }
            for (identifier, positions) in groups {
                guard let store = persistentStore(withIdentifier: identifier) else { continue }
                let ids = positions.map { objectIDs[$0] }
                var found = try store.serializingReads {
                    if !toManyLists, var partial = try store.recordsWithoutToManyLists(for: ids) {
                        for index in partial.indices { partial[index].omitsToManyLists = true }
                        return partial
                    }
                    return try store.records(for: ids)
                }
                // Moved out from the end of the reversed list: in their order, without a copy each.
                found.reverse()
                var next = 0
                var outOfStep: [StoreRecord] = []
                while let record = found.popLast() {
                    if next < positions.count, objectIDs[positions[next]] == record.objectID {
                        result[positions[next]] = record
                        next += 1
                    } else {
                        outOfStep.append(record)
                    }
                }
                guard !outOfStep.isEmpty else { continue }
                var unmatched: [ManagedObjectID: Int] = [:]
                for position in positions where result[position] == nil { unmatched[objectIDs[position]] = position }
                for record in outOfStep {
                    if let position = unmatched.removeValue(forKey: record.objectID) { result[position] = record }
                }
            }
            return result
        }
    }

    /// The position of a store in add order (for tie-breaking), or `Int.max` when it is not attached.
    func storeIndex(ofIdentifier identifier: String?) -> Int {
        guard let identifier else { return Int.max }
        return withState { position(ofIdentifier: identifier) ?? Int.max }
    }

    // MARK: Routing

    /// The store a new object is saved to, by the routing rules: the assigned store; else the only writable store
    /// whose configuration holds the entity; else the first of several (unless strict routing is on).
    func storeForNewObject(of entity: EntityDescription, assigned: PersistentStore?) throws -> PersistentStore {
        try withState {
            if let assigned {
                try checkAssignable(entity: entity, to: assigned)
                return assigned
            }
            let candidates = persistentStores.filter { !$0.isReadOnly && $0.holds(entityNamed: entity.name) }
            guard let first = candidates.first else {
                throw StoreError(code: .noStoreForEntity,
                                 message: "No writable store's configuration holds entity '\(entity.name)'; add one, "
                                    + "or assign the object to a store.",
                                 context: ErrorContext(entityName: entity.name))
            }
            if candidates.count > 1, usesStrictRouting {
                let names = candidates.map(Self.storeName)
                throw StoreError(code: .ambiguousStore,
                                 message: "\(candidates.count) writable stores could hold a new '\(entity.name)' ("
                                    + names.joined(separator: ", ") + "); assign the object to one of them.",
                                 context: ErrorContext(entityName: entity.name), candidates: names)
            }
            return first
        }
    }

    /// Checks that an object of `entity` may be assigned to `store`.
    func checkAssignable(entity: EntityDescription, to store: PersistentStore) throws {
        try withState {
            guard persistentStores.contains(where: { $0 === store }) else {
                throw StoreError(code: .storeNotFound, message: "The store is not attached to this coordinator.",
                                 context: ErrorContext(entityName: entity.name, storeURL: store.url))
            }
            guard !store.isReadOnly else {
                throw StoreError(code: .readOnlyStore,
                                 message: "The store \(Self.storeName(store)) is read-only; new objects cannot go there.",
                                 context: ErrorContext(entityName: entity.name, storeURL: store.url))
            }
            guard store.holds(entityNamed: entity.name) else {
                throw StoreError(code: .entityNotInConfiguration,
                                 message: "The store's configuration '\(store.configurationName ?? "default")' does not "
                                    + "hold entity '\(entity.name)'.",
                                 context: ErrorContext(entityName: entity.name, storeURL: store.url))
            }
        }
    }

    /// A store's name for messages: its file path, or its UUID.
    static func storeName(_ store: PersistentStore) -> String {
        store.url?.path ?? store.identifier
    }

    /// New permanent IDs for objects of an entity in a store.
    func newObjectIDs(entityName: String, in store: PersistentStore, count: Int) throws -> [ManagedObjectID] {
        try performAndWait {
            let keys = try store.newReferenceKeys(forEntityName: entityName, count: count)
            guard let first = keys.first else { return [] }
            // The names are looked up once; the other IDs share them.
            let prototype = store.objectID(forEntityName: entityName, referenceKey: first)
            return keys.map { prototype.withReferenceKey($0) }
        }
    }

    // MARK: Saving

    /// Saves changes into several stores in two phases: every store prepares (writes without making visible), then
    /// every store commits.
    ///
    /// If any store fails to prepare, every prepared store is aborted and nothing changes. If a commit fails after
    /// earlier stores committed, those stay committed and the error is ``StoreError/Code/partialSave`` naming
    /// them; with atomic stores this can only happen when a rename fails.
    func save(_ changes: [(PersistentStore, StoreChanges)]) throws {
        try performAndWait {
            for (store, storeChanges) in changes {
                guard persistentStores.contains(where: { $0 === store }) else {
                    throw StoreError(code: .storeNotFound,
                                     message: "The store \(Self.storeName(store)) was removed; its objects cannot be saved.",
                                     context: ErrorContext(storeURL: store.url), objectIDs: storeChanges.objectIDs)
                }
                if store.isReadOnly, !storeChanges.isEmpty {
                    throw StoreError(code: .readOnlyStore,
                                     message: "The store \(Self.storeName(store)) is read-only; the save would change "
                                        + "\(storeChanges.objectIDs.count) of its objects.",
                                     context: ErrorContext(storeURL: store.url), objectIDs: storeChanges.objectIDs)
                }
            }
            try checkUniqueness(changes)
            var prepared: [(PersistentStore, any PreparedSave)] = []
            do {
                for (store, storeChanges) in changes where !storeChanges.isEmpty {
                    prepared.append((store, try store.prepareSave(withHistory(storeChanges, for: store))))
                }
            } catch {
                for (_, save) in prepared { save.abort() }
                throw error
            }
            var committed: [PersistentStore] = []
            defer { if !committed.isEmpty { noteContentChanged() } }
            for (index, (store, save)) in prepared.enumerated() {
                do {
                    try save.commit()
                    committed.append(store)
                } catch {
                    for (_, rest) in prepared[(index + 1)...] { rest.abort() }
                    if committed.isEmpty { throw error }
                    throw StoreError(code: .partialSave,
                                     message: "The save committed to " + committed.map(Self.storeName).joined(separator: ", ")
                                        + " but failed for \(Self.storeName(store)); reload those stores' objects.",
                                     context: ErrorContext(storeURL: store.url), cause: error)
                }
            }
        }
    }
}
