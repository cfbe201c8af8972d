import Foundation
import ObjectGraph
import PostgresNIO

/// The value columns of a `SELECT` and how to turn a row into a `StoreRecord`.
///
/// The first three columns are `Z_PK`, `Z_ENT`, `Z_OPT`; then come attribute columns, to-one keys (with their
/// entity columns), and one scalar subquery per to-many relationship that lists the destinations as
/// `pk:ent,pk:ent,…` in order.
struct PostgresRecordReader {
    enum Value {
        case attribute(ColumnKind)
        case toOne(entityIndex: Int?, destination: String)
        case toMany(destination: String)
    }

    struct Field {
        let name: String
        let index: Int
        let value: Value
    }

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    private(set) var columns: [String] = []
    /// The fields of each entity number.
    private var fields: [Int64: [Field]] = [:]

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(
        schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
        properties: Set<String>?
    ) {
        var indexByExpression: [String: Int] = [:]
        var columns: [String] = []
        func index(of expression: String) -> Int {
            if let index = indexByExpression[expression] { return index }
            let index = 3 + columns.count
            columns.append(expression)
            indexByExpression[expression] = index
            return index
        }
        let table = entities.first?.table
        for mapping in entities {
            var fields: [Field] = []
            for column in mapping.attributes where mapping.table.has(column.name) {
                guard properties?.contains(column.attribute.name) ?? true else { continue }
                fields.append(
                    Field(
                        name: column.attribute.name, index: index(of: "\(alias).\(quoted(column.name))"),
                        value: .attribute(column.kind)))
            }
            for toOne in mapping.toOnes where mapping.table.has(toOne.name) {
                guard properties?.contains(toOne.relationship.name) ?? true,
                    let destination = toOne.relationship.destinationEntity
                else { continue }
                let entityIndex = toOne.entityColumn.flatMap { mapping.table.has($0) ? $0 : nil }
                    .map { index(of: "\(alias).\(quoted($0))") }
                fields.append(
                    Field(
                        name: toOne.relationship.name, index: index(of: "\(alias).\(quoted(toOne.name))"),
                        value: .toOne(entityIndex: entityIndex, destination: destination.name)))
            }
            for toMany in mapping.toManys {
                guard properties?.contains(toMany.relationship.name) ?? true,
                    let destination = toMany.relationship.destinationEntity,
                    let subquery = Self.listSubquery(toMany, ownerAlias: alias, schema: schema, aliases: aliases)
                else { continue }
                let owners = entities.filter {
                    $0.toMany(named: toMany.relationship.name)?.relationship
                        === toMany.relationship
                }.map(\.number)
                let expression =
                    owners.count == table?.entityNumbers.count || entities.count == 1
                    ? subquery
                    : "CASE WHEN \(alias).Z_ENT IN (" + owners.map(String.init).joined(separator: ", ")
                        + ") THEN \(subquery) END"
                fields.append(
                    Field(
                        name: toMany.relationship.name, index: index(of: expression),
                        value: .toMany(destination: destination.name)))
            }
            self.fields[mapping.number] = fields
        }
        self.columns = columns
    }

    /// `(SELECT string_agg(…) …)` listing a to-many relationship's destinations in order; `nil` when a table is
    /// missing.
    static func listSubquery(
        _ toMany: ToManyMapping, ownerAlias: String, schema: SQLSchema,
        aliases: AliasCounter
    ) -> String? {
        switch toMany.link {
        case .foreignKey(let table, let column):
            guard schema.hasTable(table.name), table.has(column.name) else { return nil }
            let alias = aliases.next()
            let order = column.orderColumn.flatMap { table.has($0) ? "\(alias).\(quoted($0)), " : nil } ?? ""
            return "(SELECT string_agg(\(alias).Z_PK || ':' || \(alias).Z_ENT, ',' ORDER BY \(order)\(alias).Z_PK) "
                + "FROM \(quoted(table.name)) \(alias) WHERE \(alias).\(quoted(column.name)) = \(ownerAlias).Z_PK)"
        case .join(let join, let isOwner):
            let table = isOwner ? join.otherTable : join.ownerTable
            guard schema.hasTable(join.name), schema.hasTable(table.name) else { return nil }
            let link = aliases.next()
            let destination = aliases.next()
            let mine = isOwner ? join.ownerColumn : join.otherColumn
            let theirs = isOwner ? join.otherColumn : join.ownerColumn
            let order = isOwner ? join.orderColumn.map { "\(link).\(quoted($0)), " } ?? "" : ""
            return "(SELECT string_agg(\(link).\(quoted(theirs)) || ':' || COALESCE(\(destination).Z_ENT, 0), ',' "
                + "ORDER BY \(order)\(link).\(quoted(theirs))) FROM \(quoted(join.name)) \(link) LEFT JOIN "
                + "\(quoted(table.name)) \(destination) ON \(destination).Z_PK = \(link).\(quoted(theirs)) WHERE "
                + "\(link).\(quoted(mine)) = \(ownerAlias).Z_PK)"
        }
    }

    /// The record of a row (its cells), whose key and entity number the caller read.
    func record(_ cells: [PostgresCell], id: ManagedObjectID, entityNumber: Int64, ids: StoreIDs) throws
        -> StoreRecord
    {
        let version = try cells[2].decode(Int64.self)
        guard let fields = fields[entityNumber] else { return StoreRecord(objectID: id, version: version) }
        var values: [String: any Sendable] = [:]
        values.reserveCapacity(fields.count)
        for field in fields {
            let stored = try SQLValue(cells[field.index])
            switch field.value {
            case .attribute(let kind):
                values[field.name] = SQLValueCoding.value(stored, kind: kind)
            case .toOne(let entityIndex, let destination):
                guard case .integer(let key) = stored else { continue }
                if let entityIndex, case .integer(let number) = try SQLValue(cells[entityIndex]),
                    let found = ids.id(entityNumber: number, key: key)
                {
                    values[field.name] = found
                } else {
                    values[field.name] = ids.id(entityName: destination, key: key)
                }
            case .toMany(let destination):
                guard case .text(let list) = stored, !list.isEmpty else { continue }
                values[field.name] = Self.parseList(list, destination: destination, ids: ids)
            }
        }
        return StoreRecord(objectID: id, version: version, values: values)
    }

    private static func parseList(_ list: String, destination: String, ids: StoreIDs) -> [ManagedObjectID] {
        list.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ":")
            guard let key = parts.first.flatMap({ Int64($0) }) else { return nil }
            if parts.count > 1, let number = Int64(parts[1]), let id = ids.id(entityNumber: number, key: key) {
                return id
            }
            return ids.id(entityName: destination, key: key)
        }
    }
}
