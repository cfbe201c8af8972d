import CSQLite
import Foundation
import ObjectGraph

/// The value columns of a `SELECT` and how to turn a row into a ``StoreRecord``.
///
/// The statement's first three columns are `Z_PK`, `Z_ENT`, `Z_OPT`; then come attribute columns, to-one keys
/// (with their entity columns), and one scalar subquery per to-many relationship that lists the destinations as
/// `pk:ent,pk:ent,…` in order.
struct RecordReader {
    enum Value {
        case attribute(ColumnKind)
        case toOne(entityIndex: Int32?, destination: String)
        case toMany(destination: String)
    }

    struct Field {
        let name: String
        let index: Int32
        let value: Value
    }

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    private(set) var columns: [String] = []
    /// The fields of each entity number.
    private(set) var fields: [Int64: [Field]] = [:]
    /// Per entity number: a dictionary holding every field's key (with a placeholder value) and the position of each
    /// field's key in it. Rows copy it and set values by position, so reading a row hashes no keys.
    private var prototypes: [Int64: (values: [String: any Sendable], positions: [Dictionary<String, any Sendable>.Index])] = [:]

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(schema: SQLiteSchema, entities: [EntityMapping], alias: String, aliases: AliasCounter,
         properties: Set<String>?) {
        var indexByExpression: [String: Int32] = [:]
        var columns: [String] = []
        func index(of expression: String) -> Int32 {
            if let index = indexByExpression[expression] { return index }
            let index = Int32(3 + columns.count)
            columns.append(expression)
            indexByExpression[expression] = index
            return index
        }
        let table = entities.first?.table
        for mapping in entities {
            var fields: [Field] = []
            for column in mapping.attributes where mapping.table.has(column.name) {
                guard properties?.contains(column.attribute.name) ?? true else { continue }
                fields.append(Field(name: column.attribute.name, index: index(of: "\(alias).\(quoted(column.name))"),
                                    value: .attribute(column.kind)))
            }
            for toOne in mapping.toOnes where mapping.table.has(toOne.name) {
                guard properties?.contains(toOne.relationship.name) ?? true,
                    let destination = toOne.relationship.destinationEntity
                else { continue }
                let entityIndex = toOne.entityColumn.flatMap { mapping.table.has($0) ? $0 : nil }
                    .map { index(of: "\(alias).\(quoted($0))") }
                fields.append(Field(name: toOne.relationship.name, index: index(of: "\(alias).\(quoted(toOne.name))"),
                                    value: .toOne(entityIndex: entityIndex, destination: destination.name)))
            }
            for toMany in mapping.toManys {
                guard properties?.contains(toMany.relationship.name) ?? true,
                    let destination = toMany.relationship.destinationEntity,
                    let subquery = Self.listSubquery(toMany, ownerAlias: alias, schema: schema, aliases: aliases)
                else { continue }
                // One subquery per relationship, evaluated only for rows of entities that have it.
                let owners = entities.filter { $0.toMany(named: toMany.relationship.name)?.relationship
                    === toMany.relationship }.map(\.number)
                let expression = owners.count == table?.entityNumbers.count || entities.count == 1
                    ? subquery
                    : "CASE WHEN \(alias).Z_ENT IN (" + owners.map(String.init).joined(separator: ", ")
                        + ") THEN \(subquery) END"
                fields.append(Field(name: toMany.relationship.name, index: index(of: expression),
                                    value: .toMany(destination: destination.name)))
            }
            self.fields[mapping.number] = fields
            var prototype: [String: any Sendable] = Dictionary(minimumCapacity: fields.count)
            for field in fields { prototype[field.name] = 0 }
            prototypes[mapping.number] = (prototype, fields.map { prototype.index(forKey: $0.name)! })
        }
        self.columns = columns
    }

    /// `(SELECT group_concat(…) FROM (SELECT pk:ent … ORDER BY order, pk))`; `nil` when a table is missing.
    static func listSubquery(_ toMany: ToManyMapping, ownerAlias: String, schema: SQLiteSchema,
                             aliases: AliasCounter) -> String? {
        switch toMany.link {
        case .foreignKey(let table, let column):
            guard schema.hasTable(table.name), table.has(column.name) else { return nil }
            let alias = aliases.next()
            let order = column.orderColumn.flatMap { table.has($0) ? "\(alias).\(quoted($0)), " : nil } ?? ""
            return "(SELECT group_concat(x, ',') FROM (SELECT \(alias).Z_PK || ':' || \(alias).Z_ENT AS x FROM "
                + "\(quoted(table.name)) \(alias) WHERE \(alias).\(quoted(column.name)) = \(ownerAlias).Z_PK "
                + "ORDER BY \(order)\(alias).Z_PK))"
        case .join(let join, let isOwner):
            let table = isOwner ? join.otherTable : join.ownerTable
            guard schema.hasTable(join.name), schema.hasTable(table.name) else { return nil }
            let link = aliases.next()
            let destination = aliases.next()
            let mine = isOwner ? join.ownerColumn : join.otherColumn
            let theirs = isOwner ? join.otherColumn : join.ownerColumn
            let order = isOwner ? join.orderColumn.map { "\(link).\(quoted($0)), " } ?? "" : ""
            return "(SELECT group_concat(x, ',') FROM (SELECT \(link).\(quoted(theirs)) || ':' || "
                + "IFNULL(\(destination).Z_ENT, 0) AS x FROM \(quoted(join.name)) \(link) LEFT JOIN "
                + "\(quoted(table.name)) \(destination) ON \(destination).Z_PK = \(link).\(quoted(theirs)) WHERE "
                + "\(link).\(quoted(mine)) = \(ownerAlias).Z_PK ORDER BY \(order)\(link).\(quoted(theirs))))"
        }
    }

    /// The record of the current row, whose key, entity number and entity name the caller read.
    func record(_ statement: SQLiteStatement, id: ManagedObjectID, entityNumber: Int64,
                schema: SQLiteSchema, storeIdentifier: String) -> StoreRecord {
        guard let fields = self.fields[entityNumber], let prototype = prototypes[entityNumber] else {
            return StoreRecord(objectID: id, version: statement.int64(at: 2))
        }
        var values = prototype.values
        var absent: [String] = []
        for (position, field) in fields.enumerated() {
            let slot = prototype.positions[position]
            switch field.value {
            case .attribute(let kind):
                if let value = ValueCoding.read(statement, at: field.index, kind: kind) {
                    values.values[slot] = value
                } else {
                    absent.append(field.name)
                }
            case .toOne(let entityIndex, let destination):
                guard !statement.isNull(at: field.index) else {
                    absent.append(field.name)
                    continue
                }
                var name = destination
                if let entityIndex, !statement.isNull(at: entityIndex),
                    let actual = schema.entityNames[statement.int64(at: entityIndex)]
                {
                    name = actual
                }
                values.values[slot] = ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier,
                                                      referenceKey: statement.int64(at: field.index))
            case .toMany(let destination):
                guard let list = statement.string(at: field.index), !list.isEmpty else {
                    absent.append(field.name)
                    continue
                }
                values.values[slot] = Self.parseList(list, destination: destination, schema: schema,
                                                     storeIdentifier: storeIdentifier)
            }
        }
        for name in absent { values[name] = nil }
        return StoreRecord(objectID: id, version: statement.int64(at: 2), values: values)
    }

    private static func parseList(_ list: String, destination: String, schema: SQLiteSchema,
                                  storeIdentifier: String) -> [ManagedObjectID] {
        list.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ":")
            guard let key = parts.first.flatMap({ Int64($0) }) else { return nil }
            let name = parts.count > 1 ? Int64(parts[1]).flatMap { schema.entityNames[$0] } ?? destination : destination
            return ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier, referenceKey: key)
        }
    }
}
