import Foundation

/// The values of a group (or of a distinct row) as a dictionary key.
struct GroupKey: Hashable {
    let values: [AnyHashable?]

    init(_ values: [(any Sendable)?]) {
        self.values = values.map { value in value.flatMap { $0 as? AnyHashable } }
    }
}

/// Groups and their partial aggregates, from objects evaluated in memory and from stores' rows, combined by key.
struct GroupAccumulator {
    struct Partial {
        var count = 0
        var sum: NumericValue?
        var minimum: Any?
        var maximum: Any?

        mutating func merge(_ other: Partial) throws {
            count += other.count
            if let rhs = other.sum { sum = sum.map { NumericValue.apply(.add, $0, rhs) } ?? rhs }
            if let value = other.minimum { try keep(value, as: .min) }
            if let value = other.maximum { try keep(value, as: .max) }
        }

        mutating func keep(_ value: Any, as function: StoreAggregate.Function) throws {
            let current = function == .min ? minimum : maximum
            if let current {
                guard let order = ValueSemantics.compare(value, current) else {
                    throw ObjectPredicateError(.typeMismatch, "\(function) needs values of one comparable kind")
                }
                let better = function == .min ? order == .orderedAscending : order == .orderedDescending
                guard better else { return }
            }
            if function == .min { minimum = value } else { maximum = value }
        }
    }

    let aggregates: [StoreAggregate]
    private(set) var keys: [GroupKey] = []
    private var groups: [GroupKey: (values: [(any Sendable)?], partials: [Partial])] = [:]

    init(aggregates: [StoreAggregate]) {
        self.aggregates = aggregates
    }

    var isEmpty: Bool { keys.isEmpty }

    private mutating func merge(_ values: [(any Sendable)?], _ partials: [Partial]) throws {
        let key = GroupKey(values)
        guard var group = groups[key] else {
            keys.append(key)
            groups[key] = (values, partials)
            return
        }
        groups[key] = nil  // so that the partials are changed in place
        for index in partials.indices { try group.partials[index].merge(partials[index]) }
        groups[key] = group
    }

    /// Adds one object: its group values and the values of the aggregates' key paths.
    mutating func add(_ object: ManagedObject, plan: DictionaryFetchPlan) throws {
        let values = try plan.groups.map { try DictionaryRows.value(of: $0.expression, for: object) }
        var partials: [Partial] = []
        partials.reserveCapacity(aggregates.count)
        for aggregate in aggregates {
            var partial = Partial()
            guard let path = aggregate.keyPath else {
                partial.count = 1
                partials.append(partial)
                continue
            }
            if let value = ValueSemantics.normalized(try ObjectExpression.value(atKeyPath: path, of: object)) {
                partial.count = 1
                switch aggregate.function {
                case .sum, .average:
                    guard let number = NumericValue(value) else {
                        throw ObjectPredicateError(
                            .typeMismatch,
                            "\(aggregate.function) needs numbers, found "
                                + "\(type(of: value)) at '\(path)'")
                    }
                    partial.sum = number
                case .min: partial.minimum = value
                case .max: partial.maximum = value
                case .count: break
                }
            }
            partials.append(partial)
        }
        try merge(values, partials)
    }

    /// Adds a store's groups.
    mutating func add(_ rows: [StoreAggregateRow]) throws {
        for row in rows {
            let partials = try zip(aggregates, row.partials).map { aggregate, stored in
                var partial = Partial(count: stored.count)
                if let sum = stored.sum {
                    guard let number = NumericValue(sum) else {
                        throw ObjectPredicateError(.typeMismatch, "\(aggregate.function) needs numbers")
                    }
                    partial.sum = number
                }
                partial.minimum = stored.minimum
                partial.maximum = stored.maximum
                return partial
            }
            try merge(row.groupValues, partials)
        }
    }

    /// Adds the group of no values when there is none (aggregates over no objects, without grouping).
    mutating func addEmptyGroupIfNone() throws {
        if keys.isEmpty { try merge([], aggregates.map { _ in Partial() }) }
    }

    /// The result dictionaries, in order of first appearance.
    func rows(_ plan: DictionaryFetchPlan) -> [[String: any Sendable]] {
        keys.map { key in
            let group = groups[key]!
            var row: [String: any Sendable] = [:]
            for column in plan.columns {
                switch column {
                case .value(let name, _, let resultType, let position):
                    if let position, let value = group.values[position] {
                        row[name] = DictionaryRows.converted(value, to: resultType)
                    }
                case .aggregate(let name, let index, let resultType):
                    let partial = group.partials[index]
                    if let value = Self.final(partial, aggregates[index].function) {
                        row[name] = DictionaryRows.converted(value, to: resultType)
                    }
                }
            }
            return row
        }
    }

    private static func final(_ partial: Partial, _ function: StoreAggregate.Function) -> (any Sendable)? {
        switch function {
        case .count: return partial.count
        case .sum: return DictionaryRows.sendable((partial.sum ?? .int(0)).anyValue)
        case .average:
            guard partial.count > 0, let sum = partial.sum else { return nil }
            if case .decimal(let decimal) = sum { return decimal / Decimal(partial.count) }
            return sum.doubleValue / Double(partial.count)
        case .min: return DictionaryRows.sendable(partial.minimum)
        case .max: return DictionaryRows.sendable(partial.maximum)
        }
    }
}

/// Values of dictionary results.
enum DictionaryRows {
    /// An expression's value for an object, as a result value (related objects as their IDs).
    static func value(of expression: ObjectExpression, for object: ManagedObject) throws -> (any Sendable)? {
        if case .keyPath(let path) = expression {
            return sendable(try ObjectExpression.value(atKeyPath: path, of: object))
        }
        return sendable(try expression.evaluate(with: object))
    }

    /// A value as results hold it: managed objects become their IDs; values of unknown types are dropped.
    static func sendable(_ value: Any?) -> (any Sendable)? {
        switch value {
        case nil: nil
        case let object as ManagedObject: object.objectID
        case let objects as [ManagedObject]: objects.map(\.objectID)
        case let objects as Set<ManagedObject>: objects.map(\.objectID)
        case let v as Int: v
        case let v as Double: v
        case let v as String: v
        case let v as Bool: v
        case let v as Date: v
        case let v as Decimal: v
        case let v as Data: v
        case let v as UUID: v
        case let v as URL: v
        case let v as Float: v
        case let v as Int64: Int(v)
        case let v as Int32: Int(v)
        case let v as Int16: Int(v)
        case let v as ManagedObjectID: v
        case let v as [ManagedObjectID]: v
        case let v as [String: any Sendable]: v  // a composite attribute's value
        default: nil
        }
    }

    /// A number converted to an expression description's result type.
    static func converted(_ value: any Sendable, to type: AttributeType) -> any Sendable {
        switch type {
        case .integer16, .integer32, .integer64:
            switch value {
            case let v as Double where v.isFinite: return Int(v)
            case let v as Decimal: return NSDecimalNumber(decimal: v).intValue
            default: return value
            }
        case .double, .float:
            switch value {
            case let v as Int: return Double(v)
            case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
            default: return value
            }
        case .decimal:
            switch value {
            case let v as Int: return Decimal(v)
            case let v as Double: return Decimal(v)
            default: return value
            }
        default:
            return value
        }
    }
}
