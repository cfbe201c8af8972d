/// A store that holds every record in memory and keeps them in sorted orders between fetches (the atomic stores).
///
/// The coordinator reads such a store through this protocol rather than through ``PersistentStore/fetch(_:)``: it
/// walks the store's orders itself, merges the orders of several such stores into one it keeps
/// (``MergedOrder``), hands records out by their position in an order (``OrderRows``, which faults keep until they
/// fire) and keeps counts over them until ``contentVersion`` changes.
///
/// A store adopting it answers the three requirements; ``makeCursor(_:key:objectIDColumn:)`` comes with them.
protocol SortedOrderStore: PersistentStore {
    /// Changes whenever the records change: caches of what the store holds compare it.
    var contentVersion: UInt64 { get }

    /// The records of the request's entities in the order of its sort keys, ties by reference key (no sort keys:
    /// by reference key); kept for the next request with the same key, until the records change.
    func sortedOrder(_ request: StoreFetchRequest, key: SortedOrder.Key) throws -> SortedOrder

    /// The predicate view of another record of the store (a relationship's destination), if the store holds it.
    func view(of id: ManagedObjectID) -> RecordView?
}

extension SortedOrderStore {
    /// The results of a request one at a time, in order: sorted fetches walk a kept sort order and stop as soon as
    /// `limit` objects matched, so a limit-50 fetch costs 50 predicate evaluations rather than a scan and a sort.
    ///
    /// - Parameter key: the request's order key, when the caller made it already (for many stores at once).
    /// - Parameter objectIDColumn: whether a walk over the whole order reads object IDs from a column of the order
    ///   (made by the first such walk) rather than from each view: for callers that make an object per result.
    func makeCursor(_ request: StoreFetchRequest, key: SortedOrder.Key? = nil, objectIDColumn: Bool = false) throws
        -> SortedOrder.Cursor
    {
        let order = try sortedOrder(
            request,
            key: key
                ?? SortedOrder.Key(
                    entityNames: request.entityNames,
                    sortKeys: request.sortKeys))
        let wholeScan = request.limit == 0
        let scan = try PredicateScan(
            request.predicate, columns: order.columns, wholeScan: wholeScan,
            range: order.positions(matching: request.predicate))
        let rows = OrderRows(
            views: order.views,
            objectIDs: objectIDColumn && wholeScan ? order.columns.objectIDs() : nil)
        return SortedOrder.Cursor(
            order: order, rows: rows, scan: scan, limit: request.limit,
            includesValues: request.includesValues)
    }
}
