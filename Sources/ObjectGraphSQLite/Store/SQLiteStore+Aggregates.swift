import Foundation
import ObjectGraph

extension SQLiteStore {
    /// A grouped fetch as one `SELECT … GROUP BY`: the group values and, per aggregate, `COUNT` and the `SUM`,
    /// `MIN` or `MAX` it needs; `nil` (evaluate in memory) when the predicate, a group key path or an aggregated
    /// key path does not translate exactly.
    func performAggregate(_ request: StoreAggregateRequest) throws -> [StoreAggregateRow]? {
        guard let query = AggregateQuery.make(request, schema: schema, storeIdentifier: identifier) else {
            return nil
        }
        guard let sql = query.sql else { return [] }
        let connection = try openConnection()
        return try StoreErrorFactory.converting(url: url, doing: "grouping \(request.entity.name) objects") {
            var rows: [StoreAggregateRow] = []
            let statement = try connection.prepare(sql)
            defer { statement.reset() }
            try statement.bind(query.bindings)
            while try statement.step() == .row {
                let groupValues = query.groupColumns.map { ValueCoding.read(statement, at: $0.index, kind: $0.kind) }
                let partials = query.aggregateColumns.map { column in
                    AggregatePartial(
                        count: Int(statement.int64(at: column.count)),
                        sum: column.sum.flatMap { ValueCoding.read(statement, at: $0.index, kind: $0.kind) },
                        minimum: column.minimum.flatMap { ValueCoding.read(statement, at: $0.index, kind: $0.kind) },
                        maximum: column.maximum.flatMap { ValueCoding.read(statement, at: $0.index, kind: $0.kind) })
                }
                rows.append(StoreAggregateRow(groupValues: groupValues, partials: partials))
            }
            return rows
        }
    }
}

/// A grouped fetch translated to SQL, with where each result column is.
struct AggregateQuery {
    typealias Column = (index: Int32, kind: ColumnKind)

    struct AggregateColumns {
        var count: Int32
        var sum: Column?
        var minimum: Column?
        var maximum: Column?
    }

    /// `nil` when the store has no table for the entity (no objects, no groups).
    var sql: String?
    var bindings: [SQLValue]
    var groupColumns: [Column]
    var aggregateColumns: [AggregateColumns]

    static func make(_ request: StoreAggregateRequest, schema: SQLSchema, storeIdentifier: String) -> AggregateQuery? {
        let fetch = StoreFetchRequest(
            entity: request.entity, entityNames: request.entityNames,
            predicate: request.predicate, sortKeys: [], limit: 0, includesValues: false)
        let made = SQLFetchCore.make(fetch, schema: schema, storeIdentifier: storeIdentifier, dialect: SQLiteDialect())
        guard let core = made else {
            return AggregateQuery(sql: nil, bindings: [], groupColumns: [], aggregateColumns: [])
        }
        guard core.isPredicateComplete else { return nil }
        let resolver = KeyPathResolver(schema: schema, dialect: SQLiteDialect())
        var select: [String] = []
        func add(_ expression: String) -> Int32 {
            select.append(expression)
            return Int32(select.count - 1)
        }
        var groupExpressions: [String] = []
        var groupColumns: [Column] = []
        for path in request.groupKeyPaths {
            guard case .column(let expression, let kind)? = resolver.resolve(path, in: core.scope),
                kind.isComparableInSQL
            else { return nil }
            groupExpressions.append(expression)
            groupColumns.append((add(expression), kind))
        }
        var aggregateColumns: [AggregateColumns] = []
        for aggregate in request.aggregates {
            guard let path = aggregate.keyPath else {
                aggregateColumns.append(AggregateColumns(count: add("COUNT(*)")))
                continue
            }
            guard case .column(let expression, let kind)? = resolver.resolve(path, in: core.scope) else { return nil }
            var columns = AggregateColumns(count: add("COUNT(\(expression))"))
            switch aggregate.function {
            case .count:
                break
            case .sum, .average:
                guard kind.isNumeric else { return nil }
                let sumKind: ColumnKind = kind == .integer || kind == .boolean ? .integer : .real
                columns.sum = (add("SUM(\(expression))"), sumKind)
            case .min, .max:
                guard kind.isNumeric || kind == .string || kind == .date else { return nil }
                let column = (add((aggregate.function == .min ? "MIN" : "MAX") + "(\(expression))"), kind)
                if aggregate.function == .min { columns.minimum = column } else { columns.maximum = column }
            }
            aggregateColumns.append(columns)
        }
        if select.isEmpty { select.append("COUNT(*)") }
        var sql = "SELECT " + select.joined(separator: ", ") + " FROM " + core.scope.fromClause()
        if let conditions = core.conditions { sql += " WHERE " + conditions.sql }
        if !groupExpressions.isEmpty { sql += " GROUP BY " + groupExpressions.joined(separator: ", ") }
        return AggregateQuery(
            sql: sql, bindings: core.conditions?.bindings ?? [], groupColumns: groupColumns,
            aggregateColumns: aggregateColumns)
    }
}
