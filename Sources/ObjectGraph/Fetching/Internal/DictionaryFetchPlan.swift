import Foundation

/// A dictionary fetch resolved against its entity: the columns of each result, what groups them and the aggregates
/// they need.
struct DictionaryFetchPlan {
    enum Column {
        /// A value of each object (or of each group: then one of ``groups``, by position).
        case value(name: String, expression: ObjectExpression, resultType: AttributeType, group: Int?)
        /// An aggregate of each group, by position in ``aggregates``.
        case aggregate(name: String, index: Int, resultType: AttributeType)

        var name: String {
            switch self {
            case .value(let name, _, _, _), .aggregate(let name, _, _): name
            }
        }
    }

    var columns: [Column] = []
    /// What makes a group: names and expressions.
    var groups: [(name: String, expression: ObjectExpression)] = []
    var aggregates: [StoreAggregate] = []

    /// Whether results are groups (grouped, aggregated, or distinct rows made groups).
    var isGrouping: Bool { !groups.isEmpty || !aggregates.isEmpty }

    /// The group key paths when every group is a plain key path (what stores compile), else `nil`.
    var groupKeyPaths: [String]? {
        var paths: [String] = []
        for group in groups {
            guard case .keyPath(let path) = group.expression, !path.contains("@") else { return nil }
            paths.append(path)
        }
        return paths
    }

    init(_ request: FetchRequest, entity: EntityDescription) throws {
        for property in request.propertiesToGroupBy ?? [] {
            let column = property.fetchColumn
            let expression: ObjectExpression
            switch column {
            case .keyPath(let path): expression = .keyPath(path)
            case .expression(let description):
                guard Self.aggregate(of: description.expression) == nil else {
                    throw Self.invalid("cannot group by the aggregate '\(description.name)'", entity: entity)
                }
                expression = description.expression
            }
            try Self.check(expression, entity: entity)
            groups.append((column.name, expression))
        }
        let fetched: [FetchColumn]
        if let properties = request.propertiesToFetch {
            fetched = properties.map(\.fetchColumn)
        } else if let grouped = request.propertiesToGroupBy {
            fetched = grouped.map(\.fetchColumn)
        } else {
            fetched = entity.allProperties.filter { $0 is AttributeDescription && !$0.isTransient }.map {
                .keyPath($0.name)
            }
        }
        var valueColumns: [(name: String, expression: ObjectExpression, resultType: AttributeType)] = []
        for column in fetched {
            switch column {
            case .keyPath(let path):
                let expression = ObjectExpression.keyPath(path)
                if let aggregate = Self.aggregate(of: expression) {
                    columns.append(.aggregate(name: path, index: aggregates.count, resultType: .undefined))
                    aggregates.append(aggregate)
                } else {
                    try Self.check(expression, entity: entity)
                    valueColumns.append((path, expression, .undefined))
                    columns.append(.value(name: path, expression: expression, resultType: .undefined, group: nil))
                }
            case .expression(let description):
                if let aggregate = Self.aggregate(of: description.expression) {
                    if let path = aggregate.keyPath { try Self.check(.keyPath(path), entity: entity) }
                    columns.append(
                        .aggregate(
                            name: description.name, index: aggregates.count,
                            resultType: description.resultType))
                    aggregates.append(aggregate)
                } else {
                    try Self.check(description.expression, entity: entity)
                    valueColumns.append((description.name, description.expression, description.resultType))
                    columns.append(
                        .value(
                            name: description.name, expression: description.expression,
                            resultType: description.resultType, group: nil))
                }
            }
        }
        if request.returnsDistinctResults, groups.isEmpty, aggregates.isEmpty {
            // Distinct rows are the groups of every fetched value.
            groups = valueColumns.map { ($0.name, $0.expression) }
        }
        guard isGrouping else { return }
        columns = try columns.map { column in
            guard case .value(let name, let expression, let resultType, _) = column else { return column }
            guard let position = groups.firstIndex(where: { $0.name == name || $0.expression == expression }) else {
                throw Self.invalid(
                    "'\(name)' is fetched beside aggregates or groups but is not in "
                        + "propertiesToGroupBy", entity: entity)
            }
            return .value(name: name, expression: expression, resultType: resultType, group: position)
        }
    }

    /// The aggregate an expression stands for: `sum:(x)`, `count:(x)`, `@avg.x`, `@count`, …; `nil` for any other.
    static func aggregate(of expression: ObjectExpression) -> StoreAggregate? {
        switch expression {
        case .function(let name, let arguments) where arguments.count == 1:
            let functions: [String: StoreAggregate.Function] = [
                "sum": .sum, "average": .average, "min": .min, "max": .max, "count": .count,
            ]
            guard let function = functions[name] else { return nil }
            switch arguments[0] {
            case .keyPath(let path) where !path.contains("@"): return StoreAggregate(function: function, keyPath: path)
            case .evaluatedObject where function == .count: return StoreAggregate(function: .count, keyPath: nil)
            default: return nil
            }
        case .keyPath(let path) where path.hasPrefix("@"):
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            let operators: [String: StoreAggregate.Function] = [
                "@sum": .sum, "@avg": .average, "@min": .min, "@max": .max, "@count": .count,
            ]
            guard let function = operators[parts[0].lowercased()] else { return nil }
            if parts.count == 1 { return function == .count ? StoreAggregate(function: .count, keyPath: nil) : nil }
            guard !parts[1].contains("@") else { return nil }
            return StoreAggregate(function: function, keyPath: parts[1])
        default:
            return nil
        }
    }

    /// Checks that a key path's first key is a property of the entity (or of a sub-entity).
    private static func check(_ expression: ObjectExpression, entity: EntityDescription) throws {
        guard case .keyPath(let path) = expression else { return }
        let first = String(path.split(separator: ".").first ?? "")
        let known = entity.selfAndDescendants.contains { $0.propertiesByName[first] != nil }
        guard known else { throw invalid("entity '\(entity.name)' has no property '\(first)'", entity: entity) }
    }

    static func invalid(_ problem: String, entity: EntityDescription) -> StoreError {
        StoreError(
            code: .invalidFetchRequest, message: "Invalid dictionary fetch: \(problem).",
            context: ErrorContext(entityName: entity.name))
    }
}
