import Foundation

/// The arithmetic behind `@sum`, `@avg`, `@min`, `@max`, `@count` and the matching functions.
enum Aggregation {
    static func apply(_ op: KeyPathComponent.CollectionOperator, to elements: [Any]) throws -> Any? {
        switch op {
        case .count:
            return elements.count
        case .sum, .avg:
            var total = NumericValue.int(0)
            var count = 0
            for element in elements {
                guard let value = ValueSemantics.normalized(element) else { continue }
                guard let number = NumericValue(value) else {
                    throw ObjectPredicateError(.typeMismatch, "\(op.rawValue) needs numbers, found \(type(of: value))")
                }
                total = NumericValue.apply(.add, total, number)
                count += 1
            }
            if op == .sum { return total.anyValue }
            if count == 0 { return nil }
            if case .decimal(let d) = total { return d / Decimal(count) }
            return total.doubleValue / Double(count)
        case .min, .max:
            var best: Any?
            for element in elements {
                guard let value = ValueSemantics.normalized(element) else { continue }
                guard let current = best else {
                    best = value
                    continue
                }
                guard let order = ValueSemantics.compare(value, current) else {
                    throw ObjectPredicateError(.typeMismatch, "\(op.rawValue) needs values of one comparable kind")
                }
                if (op == .min && order == .orderedAscending) || (op == .max && order == .orderedDescending) {
                    best = value
                }
            }
            return best
        }
    }
}
