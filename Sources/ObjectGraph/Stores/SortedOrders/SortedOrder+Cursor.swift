extension SortedOrder {
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
        /// The matches passed or handed out so far.
        var matchCount: Int { matched }

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
                sortValues: try order.keys.map { try view.sortValue($0).map(assumeSendable) },
                record: includesValues ? view.record : nil)
        }

        /// Moves past up to `count` matches without making results; returns how many it passed. Without a
        /// predicate, every record matches and the walk is a jump (a paged fetch's total counts the rest so).
        mutating func skip(_ count: Int) throws -> Int {
            let allowed = limit == 0 ? count : min(count, limit - matched)
            let passed: Int
            if scan.hasPredicate {
                passed = try scan.skipMatches(allowed, in: order.views, after: &position)
            } else {
                position = max(position, scan.range.lowerBound)
                passed = max(0, min(allowed, min(order.views.count, scan.range.upperBound) - position))
                position += passed
            }
            matched += passed
            return passed
        }

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

        /// Appends the positions of up to `count` next matches (as that many ``nextPosition()`` calls would).
        mutating func appendPositions(_ count: Int, to positions: inout [Int]) throws {
            let allowed = limit == 0 ? count : min(count, limit - matched)
            guard allowed > 0 else { return }
            matched += try scan.appendMatches(allowed, in: order.views, after: &position, to: &positions)
        }
    }
}
