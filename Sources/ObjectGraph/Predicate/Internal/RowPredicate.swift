import Foundation

/// One key's values over the rows of a table, by row position, as a store that keeps its rows in memory gives them
/// to predicates: the values of the column's type unboxed, for tests that read them without a cast, and a reader of
/// the value as it is for every other row.
final class PredicateColumn: @unchecked Sendable {  // immutable once made; `value` reads immutable rows
    enum Values {
        case string([String?])
        case int([Int?])
        case double([Double?])
        case date([Date?])
        /// The first value has none of the types above: every row goes through `value`.
        case untyped
    }

    /// Each row's value where it casts to the column's type (taken from the first row that has a value); nil
    /// where it is missing or of another type.
    let values: Values
    /// A row's value, exactly as an object would give it for the key.
    let value: (Int) -> Any?

    init(rowCount: Int, value: @escaping (Int) -> Any?) {
        self.value = value
        var first: Any?
        for row in 0..<rowCount {
            if let found = value(row) {
                first = found
                break
            }
        }
        func unboxed<T>(_: T.Type) -> [T?] {
            var values: [T?] = []
            values.reserveCapacity(rowCount)
            for row in 0..<rowCount { values.append(value(row) as? T) }
            return values
        }
        switch first {
        case is String: values = .string(unboxed(String.self))
        case is Int: values = .int(unboxed(Int.self))
        case is Double: values = .double(unboxed(Double.self))
        case is Date: values = .date(unboxed(Date.self))
        default: values = .untyped
        }
    }
}

/// A predicate as a test of rows by position (see ``PredicateColumn``).
///
/// A struct around the closure, not the closure type itself: a closure kept in an optional, an array or a
/// dictionary is stored in its most general form, and was called through two reabstraction thunks at every row
/// and at every level of a compound predicate (callgrind: most of an in-memory predicate fetch's scan). A
/// struct keeps the closure as it is wherever it is stored.
struct RowTest {
    private let test: (Int) throws -> Bool

    init(_ test: @escaping (Int) throws -> Bool) { self.test = test }

    @inline(__always)
    func callAsFunction(_ row: Int) throws -> Bool { try test(row) }
}

extension PredicateCompiler {
    /// The keys a predicate reads, when it is made only of AND, OR, NOT, TRUEPREDICATE, FALSEPREDICATE and
    /// comparisons of a plain key with an expression that folds to a constant; `nil` otherwise.
    static func rowKeys(of node: ObjectPredicate.Node) -> Set<String>? {
        var keys: Set<String> = []
        func visit(_ node: ObjectPredicate.Node) -> Bool {
            switch node {
            case .true, .false: return true
            case .not(let operand): return visit(operand)
            case .and(let operands), .or(let operands): return operands.allSatisfy(visit)
            case .comparison(let left, _, _, let modifier, _):
                guard modifier == .direct, case .keyPath(let key) = left, Self.isPlainKey(key) else { return false }
                keys.insert(key)
                return true
            }
        }
        return visit(node) ? keys : nil
    }

    static func isPlainKey(_ key: String) -> Bool {
        !key.utf8.contains(UInt8(ascii: ".")) && key.first != "@"
    }

    /// The predicate as a test of rows, reading each key from `columns`: the same results as the compiled
    /// predicate over objects giving the same values (the comparisons use the same kernels and fallbacks), or
    /// `nil` when a part of it is not a comparison with a constant (see ``rowKeys(of:)``).
    mutating func compileRows(_ node: ObjectPredicate.Node, columns: [String: PredicateColumn], depth: Int = 0) throws
        -> RowTest?
    {
        switch node {
        case .true: return RowTest { _ in true }
        case .false: return RowTest { _ in false }
        case .not(let operand):
            guard let inner = try compileRows(operand, columns: columns, depth: depth + 1) else { return nil }
            return RowTest { row in try !inner(row) }
        case .and(let operands), .or(let operands):
            var parts: [RowTest] = []
            for operand in operands {
                guard let part = try compileRows(operand, columns: columns, depth: depth + 1) else { return nil }
                parts.append(part)
            }
            if case .and = node { return Self.combining(parts, all: true) }
            return Self.combining(parts, all: false)
        case .comparison(let left, let op, let right, let modifier, let options):
            guard modifier == .direct, case .keyPath(let key) = left, let column = columns[key],
                case .constant(let constant) = try compile(right, depth: depth + 1)
            else { return nil }
            let test = try ComparisonFastPath.make(op, constant: constant, options: options,
                                                   name: PredicateFormatter.format(left))
            let read = column.value
            let slow = RowTest { row in try test(read(row)) }
            guard let constant else { return slow }
            if let ordered = Self.orderedTest(op, constant: constant, values: column.values, slow: slow) {
                return ordered
            }
            guard let kernel = try ComparisonFastPath.kernel(op, constant: constant, options: options)
            else { return slow }
            // Written out per type rather than by a generic function, which would keep the kernel in its most
            // general form and call it through a reabstraction thunk at every row.
            switch (kernel, column.values) {
            case (.string(let kernel), .string(let values)):
                return RowTest { row in if let value = values[row] { kernel(value) } else { try slow(row) } }
            case (.int(let kernel), .int(let values)):
                return RowTest { row in if let value = values[row] { kernel(value) } else { try slow(row) } }
            case (.double(let kernel), .double(let values)):
                return RowTest { row in if let value = values[row] { kernel(value) } else { try slow(row) } }
            case (.date(let kernel), .date(let values)):
                return RowTest { row in if let value = values[row] { kernel(value) } else { try slow(row) } }
            default: return slow
            }
        }
    }

    /// `key OP constant` for the six order comparisons of an integer, double or date column with a constant of the
    /// column's type (the cases ``ComparisonFastPath/kernel(_:constant:options:)`` makes a kernel for, with the
    /// same results): the operator is chosen here, not by the kernel at every row, and the row test compares the
    /// column's value itself rather than calling the kernel (callgrind: a third of a sorted fetch's row tests).
    private static func orderedTest(
        _ op: ComparisonOperator, constant: Any, values: PredicateColumn.Values, slow: RowTest
    ) -> RowTest? {
        switch values {
        case .int(let values):
            guard let c = constant as? Int else { return nil }
            return ordered(op, values, c, slow: slow)
        case .double(let values):
            // An integer constant makes an integer kernel (no test for a double column); NaN makes none.
            guard !(constant is Int), let c = constant as? Double, !c.isNaN else { return nil }
            return ordered(op, values, c, slow: slow)
        case .date(let values):
            guard let c = constant as? Date else { return nil }
            return ordered(op, values, c, slow: slow)
        case .string, .untyped:
            return nil
        }
    }

    /// The row test of `value OP c` over `values` (`slow` for a row without a value of the type). Inlined into
    /// each call above, so each closure is made where `T` is concrete: the closure's own type, `(Int) -> Bool`,
    /// does not involve `T`, so no reabstraction thunk comes between it and the row (callgrind: the same
    /// instructions as closures written out per type).
    @inline(__always)
    private static func ordered<T: Comparable>(
        _ op: ComparisonOperator, _ values: [T?], _ c: T, slow: RowTest
    ) -> RowTest? {
        switch op {
        case .equalTo: RowTest { row in if let v = values[row] { v == c } else { try slow(row) } }
        case .notEqualTo: RowTest { row in if let v = values[row] { v != c } else { try slow(row) } }
        case .lessThan: RowTest { row in if let v = values[row] { v < c } else { try slow(row) } }
        case .lessThanOrEqualTo: RowTest { row in if let v = values[row] { v <= c } else { try slow(row) } }
        case .greaterThan: RowTest { row in if let v = values[row] { v > c } else { try slow(row) } }
        case .greaterThanOrEqualTo: RowTest { row in if let v = values[row] { v >= c } else { try slow(row) } }
        default: nil
        }
    }

    /// AND (`all`) or OR of row tests, short-circuiting in order as the object evaluator does.
    private static func combining(_ parts: [RowTest], all: Bool) -> RowTest {
        switch parts.count {
        case 0: return RowTest { _ in all }
        case 1: return parts[0]
        case 2:
            let (a, b) = (parts[0], parts[1])
            return all ? RowTest { row in try a(row) && b(row) } : RowTest { row in try a(row) || b(row) }
        default:
            return RowTest { row in
                for part in parts where try part(row) != all { return !all }
                return all
            }
        }
    }
}

extension ObjectPredicate {
    /// The keys ``rowTest(columns:)`` needs columns for, or `nil` when the predicate cannot be tested by row.
    var rowKeys: Set<String>? { PredicateCompiler.rowKeys(of: node) }

    /// The predicate as a test of rows whose keys' values are in `columns` (every key of ``rowKeys``); `nil` when
    /// it cannot be tested that way.
    func rowTest(columns: [String: PredicateColumn]) throws -> RowTest? {
        var compiler = PredicateCompiler(substitutions: [:])
        return try compiler.compileRows(node, columns: columns)
    }
}
