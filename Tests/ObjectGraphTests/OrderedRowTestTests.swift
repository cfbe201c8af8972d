import Foundation
import Testing

@testable import ObjectGraph

/// Row tests of `key OP constant` over typed columns (the six order comparisons of integers, doubles and dates,
/// compiled without the kernel) agree with evaluating the predicate on each row's value, at the constant and on
/// either side of it, for missing values and for values of another type than the column's.
@Suite("Ordered comparisons as row tests")
struct OrderedRowTestTests {
    static let operators = ["==", "!=", "<", "<=", ">", ">="]

    /// Every row of `values` tested by the row test of `key OP constant` and by the predicate on the row's value.
    private static func mismatches(_ values: [Any?], constant: Any, key: String = "v") throws -> [String] {
        let column = PredicateColumn(rowCount: values.count) { values[$0] }
        var found: [String] = []
        for op in operators {
            let predicate = try ObjectPredicate(format: "\(key) \(op) %@", argumentArray: [constant])
            let test = try #require(try predicate.rowTest(columns: [key: column]), "\(predicate) has no row test")
            for (row, value) in values.enumerated() {
                var record: [String: Any] = [:]
                if let value { record[key] = value }
                let expected = try predicate.evaluate(with: record)
                if try test(row) != expected { found.append("\(predicate) on \(value.map { "\($0)" } ?? "nil")") }
            }
        }
        return found
    }

    @Test func integerColumns() throws {
        #expect(try Self.mismatches([nil, 9, 10, 11, -5, Int.max], constant: 10) == [])
        #expect(try Self.mismatches([nil, 9, 10, 11], constant: 10.5) == [])
        // A row of another type than the column's (the first value's) goes the slow way.
        #expect(try Self.mismatches([10, "10", 10.0, 11], constant: 10) == [])
    }

    @Test func doubleColumns() throws {
        #expect(try Self.mismatches([nil, 1.5, 2.5, 3.5, -0.0, Double.nan, .infinity], constant: 2.5) == [])
        #expect(try Self.mismatches([nil, 0.0, -0.0, 1.0], constant: 0.0) == [])
        #expect(try Self.mismatches([1.5, 2.0, 3.0], constant: 2) == [])
        #expect(try Self.mismatches([1.5, 2, 3.0, nil], constant: 2.0) == [])
    }

    @Test func dateColumns() throws {
        let moment = Date(timeIntervalSinceReferenceDate: 811_000_000)
        let values: [Any?] = [
            nil, moment, moment.addingTimeInterval(-1), moment.addingTimeInterval(1), moment.addingTimeInterval(0.001),
        ]
        #expect(try Self.mismatches(values, constant: moment) == [])
    }
}
