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
