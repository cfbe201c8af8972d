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
        /// What ``OrderRange`` learnt of the order's values, by key (kinds) and by pair of keys (spans).
        var rangeKinds: [String: RangeKind?] = [:]
        var spans: [String: Double?] = [:]
    }

    /// The records, in the order's positions.
    var orderViews: [RecordView] { views }

    /// The kind of the values of the order's first sort key `key`, made by `make` the first time.
    func rangeKind(of key: String, make: () -> RangeKind?) -> RangeKind? {
        state.withLock { state in
            if let known = state.rangeKinds[key] { return known }
            let made = make()
            state.rangeKinds[key] = made
            return made
        }
    }

    /// The longest `to - from` over the records, made by `make` the first time.
    func longestSpan(from: String, to: String, make: () -> Double?) -> Double? {
        state.withLock { state in
            let key = from + "\u{0}" + to
            if let known = state.spans[key] { return known }
            let made = make()
            state.spans[key] = made
            return made
        }
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
