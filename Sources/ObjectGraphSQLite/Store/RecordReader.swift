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

    /// How to read the rows of one entity: its fields, and the keys its records' rows are laid out by.
    final class EntityPlan {
        /// A field as a plain value, so that the row loop copies it without reference counting.
        struct Read {
            let column: Int32
            /// The attribute's kind; `nil` for a relationship (read from `fields`).
            let kind: ColumnKind?
            /// The field's position among the record's keys.
            let position: Int
        }

        let number: Int64
        /// The fields, in the order of their positions among `keys`.
        let fields: [Field]
        let reads: [Read]
        /// The keys of the records' rows: the entity's own (a context applies such rows by position) when the
        /// reader reads all of its properties, else the fields' names.
        let keys: RecordKeys
        /// Whether every key has a field, in order (the row is read without looking for gaps).
        let readsEveryKey: Bool

        init(number: Int64, fields: [Field], entityKeys: RecordKeys?) {
            self.number = number
            let keys: RecordKeys
            var positioned: [(Field, Int)] = []
            if let entityKeys, fields.allSatisfy({ entityKeys.position(of: $0.name) != nil }) {
                keys = entityKeys
                positioned = fields.map { ($0, entityKeys.position(of: $0.name)!) }.sorted { $0.1 < $1.1 }
            } else {
                keys = RecordKeys(fields.map(\.name))
                positioned = fields.enumerated().map { ($1, $0) }
            }
            self.keys = keys
            self.fields = positioned.map(\.0)
            reads = positioned.map { field, position in
                if case .attribute(let kind) = field.value {
                    return Read(column: field.index, kind: kind, position: position)
                }
                return Read(column: field.index, kind: nil, position: position)
            }
            readsEveryKey = reads.count == keys.names.count
        }
    }

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    private(set) var columns: [String] = []
    /// The plan of each entity number.
    private var plans: [Int64: EntityPlan] = [:]
    /// The plan when the reader reads one entity (no lookup per row).
    private var onlyPlan: EntityPlan?

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
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
            plans[mapping.number] = EntityPlan(number: mapping.number, fields: fields,
                                               entityKeys: properties == nil ? mapping.entity.recordKeys : nil)
        }
        self.columns = columns
        onlyPlan = plans.count == 1 ? plans.values.first : nil
    }

    /// `(SELECT group_concat(…) FROM (SELECT pk:ent … ORDER BY order, pk))`; `nil` when a table is missing.
    static func listSubquery(_ toMany: ToManyMapping, ownerAlias: String, schema: SQLSchema,
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
                schema: SQLSchema, ids: StoreIDs) -> StoreRecord {
        let plan: EntityPlan
        if let onlyPlan, onlyPlan.number == entityNumber {
            plan = onlyPlan
        } else if let found = plans[entityNumber] {
            plan = found
        } else {
            return StoreRecord(objectID: id, version: statement.int64(at: 2))
        }
        let handle = statement.handle
        let reads = plan.reads
        let count = plan.keys.names.count
        var row: [(any Sendable)?] = []
        row.reserveCapacity(count)
        var next = 0
        for position in 0..<count {
            guard plan.readsEveryKey || (next < reads.count && reads[next].position == position) else {
                row.append(nil)
                continue
            }
            row.append(Self.value(reads[next], of: handle, statement: statement) {
                Self.relationship(plan.fields[next], statement: statement, schema: schema, ids: ids)
            })
            next += 1
        }
        return StoreRecord(objectID: id, version: statement.int64(at: 2), keys: plan.keys, row: row)
    }

    /// One attribute of the current row; `relationship` reads any other field.
    @inline(__always)
    private static func value(_ read: EntityPlan.Read, of handle: OpaquePointer, statement: SQLiteStatement,
                              relationship: () -> (any Sendable)?) -> (any Sendable)? {
        let column = read.column
        // The common kinds are read directly, and their NULL test costs a call only when the column reads as
        // zero (NULL reads as 0, and as a nil text pointer). A NULL gives nil: the key is left out.
        switch read.kind {
        case .integer?:
            let integer = sqlite3_column_int64(handle, column)
            if integer == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return Int(integer)
        case .boolean?:
            let integer = sqlite3_column_int64(handle, column)
            if integer == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return integer != 0
        case .real?:
            let real = sqlite3_column_double(handle, column)
            if real == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return real
        case .date?:
            let real = sqlite3_column_double(handle, column)
            if real == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return Date(timeIntervalSinceReferenceDate: real)
        case .string?:
            guard let text = sqlite3_column_text(handle, column) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
            return String(decoding: bytes, as: UTF8.self)
        case let kind?:
            return ValueCoding.read(statement, at: column, kind: kind)
        case nil:
            return relationship()
        }
    }

    /// A relationship field of the current row: a destination ID, or a list of them; `nil` for none.
    private static func relationship(_ field: Field, statement: SQLiteStatement, schema: SQLSchema,
                                     ids: StoreIDs) -> (any Sendable)? {
        switch field.value {
        case .attribute:
            return nil
        case .toOne(let entityIndex, let destination):
            guard !statement.isNull(at: field.index) else { return nil }
            let key = statement.int64(at: field.index)
            if let entityIndex, !statement.isNull(at: entityIndex),
                let id = ids.id(entityNumber: statement.int64(at: entityIndex), key: key)
            {
                return id
            }
            return ids.id(entityName: destination, key: key)
        case .toMany(let destination):
            let handle = statement.handle
            guard let text = sqlite3_column_text(handle, field.index) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, field.index)))
            guard !bytes.isEmpty else { return nil }
            return parseList(bytes, destination: destination, ids: ids)
        }
    }

    /// The IDs in a to-many list as the subquery writes it, `key:entity,key:entity,…`, read from its bytes (making
    /// a string of it and splitting that cost more than the rest of the row). An item whose key does not parse is
    /// skipped; an item without a known entity number gets the relationship's destination entity.
    static func parseList(_ bytes: UnsafeBufferPointer<UInt8>, destination: String, ids: StoreIDs)
        -> [ManagedObjectID]
    {
        var result: [ManagedObjectID] = []
        var fields: (key: Int64?, number: Int64?) = (nil, nil)
        var value: Int64 = 0
        var digits = 0
        var valid = true
        var fieldIndex = 0
        func endField() {
            let parsed = valid && digits > 0 ? value : nil
            if fieldIndex == 0 { fields.key = parsed } else if fieldIndex == 1 { fields.number = parsed }
            fieldIndex += 1
            (value, digits, valid) = (0, 0, true)
        }
        func endItem() {
            endField()
            if let key = fields.key {
                if let number = fields.number, let id = ids.id(entityNumber: number, key: key) {
                    result.append(id)
                } else {
                    result.append(ids.id(entityName: destination, key: key))
                }
            }
            fields = (nil, nil)
            fieldIndex = 0
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowAgain) = times.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                if overflow || overflowAgain { valid = false }
                value = sum
                digits += 1
            case UInt8(ascii: ":"): endField()
            case UInt8(ascii: ","): endItem()
            default: valid = false
            }
        }
        endItem()
        return result
    }
}
