/// How a walk over an order tests its records: the compiled predicate record by record, or a row test reading
/// columns (see ``RowColumns``).
///
/// A scan of the whole order (no limit) makes the columns it needs at once. A walk that may stop early uses
/// columns only if they exist, and makes them once it has tested ``columnThreshold`` records one by one (a
/// limited walk over a predicate that matches little scans as much as a whole scan).
struct PredicateScan {
    /// The predicate compiled for records, when there is no row test (a walk with a row test never evaluates it:
    /// compiling it as well cost as much as the row test, for every request with a new predicate).
    private var predicate: CompiledPredicate?
    /// Whether the scan tests records at all.
    let hasPredicate: Bool
    private var rows: RowTest?
    private var makeRows: (() throws -> RowTest?)?
    private var tested = 0
    static let columnThreshold = 4096
    /// Ranges of fewer records are tested without a row test.
    static let rowTestMinimum = 32
    /// The positions that can match (``OrderRange``): a walk starts at the first and stops after the last.
    let range: Range<Int>

    /// - Parameter range: the positions of the order that can match (the whole order when nil).
    init(_ predicate: ObjectPredicate?, columns: RowColumns, wholeScan: Bool, range: Range<Int>? = nil) throws {
        self.range = range ?? 0..<columns.orderViews.count
        hasPredicate = predicate != nil
        guard let predicate else { return }
        // A few records (a store's share of a narrow range) are tested one by one: making the row test of a new
        // predicate costs about as much as ten evaluations of the compiled predicate, which every store shares.
        // A walk over a range of the order (see ``OrderRange``) makes the columns it needs, kept with the order
        // for the next such walk, as a whole scan does.
        if self.range.count >= Self.rowTestMinimum {
            let isRanged = self.range.count < columns.orderViews.count
            rows = try columns.rowTest(for: predicate, makingColumns: wholeScan || isRanged)
            if rows == nil, !wholeScan, !isRanged {
                makeRows = { try columns.rowTest(for: predicate, makingColumns: true) }
            }
        }
        if rows == nil { self.predicate = try predicate.compiled() }
    }

    /// Moves `position` past up to `count` matches (as that many calls of ``nextMatch(in:after:)`` would) and returns
    /// how many it passed. With a row test, the walk calls it in a loop of its own: a count walks every match of
    /// its range, and a call per match cost several times the test (callgrind, the daemon's `SessionsAt`).
    mutating func skipMatches(_ count: Int, in views: [RecordView], after position: inout Int) throws -> Int {
        try walkMatches(count, in: views, after: &position) { _ in }
    }

    /// Appends the positions of up to `count` matches from `position` on to `positions` (as that many calls of
    /// ``nextMatch(in:after:)`` would) and returns how many it appended. With a row test, the walk keeps the test
    /// in hand: a call per match copied it out of the scan, retaining and releasing its context for every match
    /// (callgrind, a sorted fetch of 100k objects).
    mutating func appendMatches(
        _ count: Int, in views: [RecordView], after position: inout Int, to positions: inout [Int]
    ) throws -> Int {
        try walkMatches(count, in: views, after: &position) { positions.append($0) }
    }

    /// The walk of ``skipMatches(_:in:after:)`` and ``appendMatches(_:in:after:to:)``: up to `count` matches from
    /// `position` on, each handed to `match`, the row test (when there is one) kept in hand for the whole walk.
    @inline(__always)
    private mutating func walkMatches(
        _ count: Int, in views: [RecordView], after position: inout Int, _ match: (Int) -> Void
    ) throws -> Int {
        var passed = 0
        guard let rows else {
            while passed < count, let index = try nextMatch(in: views, after: &position) {
                match(index)
                passed += 1
            }
            return passed
        }
        if position < range.lowerBound { position = range.lowerBound }
        let end = min(views.count, range.upperBound)
        while passed < count, position < end {
            let index = position
            position += 1
            if index & 0xFFF == 0xFFF { try StoreCancellation.checkCancellation() }
            if try rows(index) {
                match(index)
                passed += 1
            }
        }
        return passed
    }

    /// The position of the first view from `position` on (and in ``range``) that the predicate accepts (any,
    /// without a predicate); `position` moves past it. Checks for cancellation every 4,096 views, so a deadline
    /// stops a long scan.
    mutating func nextMatch(in views: [RecordView], after position: inout Int) throws -> Int? {
        if position < range.lowerBound { position = range.lowerBound }
        let end = min(views.count, range.upperBound)
        while position < end {
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
