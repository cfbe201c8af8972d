import Foundation

/// The value columns of a `SELECT` that reads records, and where each entity's values are among them: what the SQL
/// stores' record readers share, each reading its own engine's cells by the plans.
///
/// The statement's first three columns are `Z_PK`, `Z_ENT`, `Z_OPT`; then come attribute columns, to-one keys
/// (with their entity columns), and one scalar subquery per to-many relationship that lists the destinations as
/// `pk:ent,pk:ent,…` in order (``SQLDialect/orderedList(_:from:where:orderBy:)``). A layout made to defer lists
/// has no such columns: its ``deferredLists`` read the lists of many rows at once, after the rows.
package struct SQLRecordLayout {
    /// A to-many relationship whose destinations one more query reads for all the rows read (a correlated subquery
    /// per row cost four times the rest of a thousand-row read): ``select`` (`SELECT owner, key, entity number …
    /// WHERE owner`), then a condition on the owner's key (`IN (…)`, or `BETWEEN ? AND ?` for owners whose keys
    /// are close), then ``orderBy``: rows in order of owner, then of the list.
    package struct DeferredList: Sendable {
        /// The statement up to the condition on the owner's key.
        package let select: String
        /// ` ORDER BY …`.
        package let orderBy: String
        /// The relationship's destination entity, for keys without a known entity number.
        package let destination: String
        /// The destination's entity number when the query reads none (its table holds no other entity).
        package let destinationNumber: Int64?
        /// Where the list goes in the rows of each entity number that has the relationship.
        package let positions: [Int64: Int]
    }

    /// What a column holds for a field.
    package enum Value {
        case attribute(ColumnKind)
        /// A to-one key, with the column of the destination's entity number when the destination has sub-entities.
        case toOne(entityColumn: Int?, destination: String)
        /// The list of a to-many relationship's destinations.
        case toMany(destination: String)
        /// A composite attribute: its elements' columns (the field's own column is the first of them).
        case composite([CompositeElementColumn])
    }

    /// The column of one element of a composite attribute, and the element's path below the composite.
    package struct CompositeElementColumn: Sendable {
        package let column: Int
        package let kind: ColumnKind
        package let path: [String]
    }

    /// One property of a record and the column that holds it.
    package struct Field {
        package let name: String
        package let column: Int
        package let value: Value
    }

    /// How to read the rows of one entity: its fields, and the keys its records' rows are laid out by.
    package final class EntityPlan {
        /// A field as a plain value, so that a row loop copies it without reference counting.
        package struct Read {
            package let column: Int
            /// The attribute's kind; `nil` for a relationship (read from ``EntityPlan/fields``).
            package let kind: ColumnKind?
            /// The field's position among the record's keys.
            package let position: Int
        }

        package let number: Int64
        /// The fields, in the order of their positions among ``keys``.
        package let fields: [Field]
        package let reads: [Read]
        /// The keys of the records' rows: the entity's own (a context applies such rows by position) when the
        /// layout reads all of its properties, else the fields' names.
        package let keys: RecordKeys
        /// Whether every key has a field, in order (a row is read without looking for gaps).
        package let readsEveryKey: Bool

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
                    return Read(column: field.column, kind: kind, position: position)
                }
                return Read(column: field.column, kind: nil, position: position)
            }
            readsEveryKey = reads.count == keys.names.count
        }

        /// A record's row: the value of each key, read by `read` for the keys that have a field (nil otherwise).
        @inline(__always)
        package func row(_ read: (Read, Int) throws -> (any Sendable)?) rethrows -> [(any Sendable)?] {
            let count = keys.names.count
            var row: [(any Sendable)?] = []
            row.reserveCapacity(count)
            var next = 0
            for position in 0..<count {
                guard readsEveryKey || (next < reads.count && reads[next].position == position) else {
                    row.append(nil)
                    continue
                }
                row.append(try read(reads[next], next))
                next += 1
            }
            return row
        }
    }

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    package let columns: [String]
    /// The plan of each entity number.
    private let plans: [Int64: EntityPlan]
    /// The plan when the layout reads one entity (no lookup per row).
    private let onlyPlan: EntityPlan?
    /// The to-many relationships read after the rows, when the layout defers lists.
    package let deferredLists: [DeferredList]

    /// The layout of rows of `entities` read from `alias`, limited to `properties` when given; with `defersLists`,
    /// to-many relationships are left to ``deferredLists`` rather than read by a subquery per row.
    package init(
        schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
        properties: Set<String>?, dialect: any SQLDialect, defersLists: Bool = false
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
        var plans: [Int64: EntityPlan] = [:]
        var deferred: [ObjectIdentifier: (select: String, orderBy: String, destination: String, number: Int64?)] = [:]
        var deferredOrder: [ObjectIdentifier] = []
        let table = entities.first?.table
        for mapping in entities {
            var fields: [Field] = []
            var composites: [(name: String, elements: [CompositeElementColumn])] = []
            for column in mapping.attributes where mapping.table.has(column.name) {
                if let composite = column.composite {
                    guard properties?.contains(composite.name) ?? true else { continue }
                    let element = CompositeElementColumn(
                        column: index(of: "\(alias).\(quoted(column.name))"), kind: column.kind,
                        path: column.elementPath)
                    if let last = composites.indices.last, composites[last].name == composite.name {
                        composites[last].elements.append(element)
                    } else {
                        composites.append((composite.name, [element]))
                    }
                    continue
                }
                guard properties?.contains(column.attribute.name) ?? true else { continue }
                fields.append(
                    Field(
                        name: column.attribute.name, column: index(of: "\(alias).\(quoted(column.name))"),
                        value: .attribute(column.kind)))
            }
            for (name, elements) in composites {
                fields.append(Field(name: name, column: elements[0].column, value: .composite(elements)))
            }
            for toOne in mapping.toOnes where mapping.table.has(toOne.name) {
                guard properties?.contains(toOne.relationship.name) ?? true,
                    let destination = toOne.relationship.destinationEntity
                else { continue }
                let entityColumn = toOne.entityColumn.flatMap { mapping.table.has($0) ? $0 : nil }
                    .map { index(of: "\(alias).\(quoted($0))") }
                fields.append(
                    Field(
                        name: toOne.relationship.name, column: index(of: "\(alias).\(quoted(toOne.name))"),
                        value: .toOne(entityColumn: entityColumn, destination: destination.name)))
            }
            for toMany in mapping.toManys {
                if defersLists {
                    guard properties?.contains(toMany.relationship.name) ?? true,
                        let destination = toMany.relationship.destinationEntity,
                        let query = Self.listQuery(toMany, schema: schema)
                    else { continue }
                    let key = ObjectIdentifier(toMany.relationship)
                    if deferred[key] == nil {
                        deferred[key] = (query.select, query.orderBy, destination.name, query.destinationNumber)
                        deferredOrder.append(key)
                    }
                    fields.append(
                        Field(name: toMany.relationship.name, column: -1, value: .toMany(destination: destination.name))
                    )
                    continue
                }
                guard properties?.contains(toMany.relationship.name) ?? true,
                    let destination = toMany.relationship.destinationEntity,
                    let subquery = Self.listSubquery(
                        toMany, ownerAlias: alias, schema: schema, aliases: aliases, dialect: dialect)
                else { continue }
                // One subquery per relationship, evaluated only for rows of entities that have it.
                let owners = entities.filter {
                    $0.toMany(named: toMany.relationship.name)?.relationship === toMany.relationship
                }.map(\.number)
                let expression =
                    owners.count == table?.entityNumbers.count || entities.count == 1
                    ? subquery
                    : "CASE WHEN \(alias).Z_ENT IN (" + owners.map(String.init).joined(separator: ", ")
                        + ") THEN \(subquery) END"
                fields.append(
                    Field(
                        name: toMany.relationship.name, column: index(of: expression),
                        value: .toMany(destination: destination.name)))
            }
            plans[mapping.number] = EntityPlan(
                number: mapping.number, fields: fields,
                entityKeys: properties == nil ? mapping.entity.recordKeys : nil)
        }
        self.columns = columns
        self.plans = plans
        onlyPlan = plans.count == 1 ? plans.values.first : nil
        var positions: [ObjectIdentifier: [Int64: Int]] = [:]
        for mapping in entities {
            guard let plan = plans[mapping.number] else { continue }
            for (index, field) in plan.fields.enumerated() where field.column < 0 {
                guard let relationship = mapping.toMany(named: field.name)?.relationship else { continue }
                positions[ObjectIdentifier(relationship), default: [:]][mapping.number] = plan.reads[index].position
            }
        }
        deferredLists = deferredOrder.compactMap { key in
            guard let query = deferred[key], let positions = positions[key] else { return nil }
            return DeferredList(
                select: query.select, orderBy: query.orderBy, destination: query.destination,
                destinationNumber: query.number, positions: positions)
        }
    }

    /// The statement that lists a to-many relationship's destinations for many owners (``DeferredList``); `nil`
    /// when a table is missing. The destination's entity number is read only when its table holds several (so
    /// that an index on the owner's column covers the query).
    static func listQuery(_ toMany: ToManyMapping, schema: SQLSchema)
        -> (select: String, orderBy: String, destinationNumber: Int64?)?
    {
        switch toMany.link {
        case .foreignKey(let table, let column):
            guard schema.hasTable(table.name), table.has(column.name) else { return nil }
            let owner = "l.\(quoted(column.name))"
            let order = column.orderColumn.flatMap { table.has($0) ? "l.\(quoted($0)), " : nil } ?? ""
            let single = table.entityNumbers.count == 1 ? table.entityNumbers.first : nil
            return (
                "SELECT \(owner), l.Z_PK, \(single == nil ? "l.Z_ENT" : "NULL") FROM \(quoted(table.name)) l WHERE \(owner)",
                " ORDER BY \(owner), \(order)l.Z_PK", single
            )
        case .join(let join, let isOwner):
            let table = isOwner ? join.otherTable : join.ownerTable
            guard schema.hasTable(join.name), schema.hasTable(table.name) else { return nil }
            let mine = "l.\(quoted(isOwner ? join.ownerColumn : join.otherColumn))"
            let theirs = "l.\(quoted(isOwner ? join.otherColumn : join.ownerColumn))"
            let order = isOwner ? join.orderColumn.map { "l.\(quoted($0)), " } ?? "" : ""
            let single = table.entityNumbers.count == 1 ? table.entityNumbers.first : nil
            let from =
                single == nil
                ? "COALESCE(d.Z_ENT, 0) FROM \(quoted(join.name)) l LEFT JOIN \(quoted(table.name)) d ON d.Z_PK = \(theirs)"
                : "NULL FROM \(quoted(join.name)) l"
            return ("SELECT \(mine), \(theirs), \(from) WHERE \(mine)", " ORDER BY \(mine), \(order)\(theirs)", single)
        }
    }

    /// The plan of an entity number; `nil` for an entity the layout does not read.
    @inline(__always)
    package func plan(forEntityNumber number: Int64) -> EntityPlan? {
        if let onlyPlan, onlyPlan.number == number { return onlyPlan }
        return plans[number]
    }

    /// A scalar subquery listing a to-many relationship's destinations as `pk:ent,…` in order (for ordered
    /// one-to-many relationships by their order column, then by key); `nil` when a table is missing.
    package static func listSubquery(
        _ toMany: ToManyMapping, ownerAlias: String, schema: SQLSchema, aliases: AliasCounter,
        dialect: any SQLDialect
    ) -> String? {
        switch toMany.link {
        case .foreignKey(let table, let column):
            guard schema.hasTable(table.name), table.has(column.name) else { return nil }
            let alias = aliases.next()
            let order = column.orderColumn.flatMap { table.has($0) ? "\(alias).\(quoted($0)), " : nil } ?? ""
            return dialect.orderedList(
                "\(alias).Z_PK || ':' || \(alias).Z_ENT", from: "\(quoted(table.name)) \(alias)",
                where: "\(alias).\(quoted(column.name)) = \(ownerAlias).Z_PK", orderBy: "\(order)\(alias).Z_PK")
        case .join(let join, let isOwner):
            let table = isOwner ? join.otherTable : join.ownerTable
            guard schema.hasTable(join.name), schema.hasTable(table.name) else { return nil }
            let link = aliases.next()
            let destination = aliases.next()
            let mine = isOwner ? join.ownerColumn : join.otherColumn
            let theirs = isOwner ? join.otherColumn : join.ownerColumn
            let order = isOwner ? join.orderColumn.map { "\(link).\(quoted($0)), " } ?? "" : ""
            return dialect.orderedList(
                "\(link).\(quoted(theirs)) || ':' || COALESCE(\(destination).Z_ENT, 0)",
                from: "\(quoted(join.name)) \(link) LEFT JOIN \(quoted(table.name)) \(destination) ON "
                    + "\(destination).Z_PK = \(link).\(quoted(theirs))",
                where: "\(link).\(quoted(mine)) = \(ownerAlias).Z_PK", orderBy: "\(order)\(link).\(quoted(theirs))")
        }
    }

    /// The destination of a to-one key: by the entity number read beside it when there is one the store knows,
    /// else of the relationship's destination entity.
    @inline(__always)
    package static func destination(key: Int64, entityNumber: Int64?, destination: String, ids: StoreIDs)
        -> ManagedObjectID
    {
        if let entityNumber, let id = ids.id(entityNumber: entityNumber, key: key) { return id }
        return ids.id(entityName: destination, key: key)
    }

    /// The IDs of a to-many list (`pk:ent,pk:ent,…`), in order.
    package static func parseList(_ list: String, destination: String, ids: StoreIDs) -> [ManagedObjectID] {
        var list = list
        return list.withUTF8 { parseList($0, destination: destination, ids: ids) }
    }

    /// The IDs of a to-many list (`pk:ent,pk:ent,…`) read from its UTF-8 bytes, in order (making a string of a
    /// list and splitting it cost more than the rest of reading a row). An item whose key does not parse is skipped
    /// (an empty one too); an item without a known entity number gets the relationship's destination entity.
    package static func parseList(_ bytes: UnsafeBufferPointer<UInt8>, destination: String, ids: StoreIDs)
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
                let number = fields.number
                result.append(Self.destination(key: key, entityNumber: number, destination: destination, ids: ids))
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

extension SQLRecordLayout {
    /// A composite attribute's value from its elements' stored values (`read` gives each element's, nil for NULL):
    /// nested dictionaries by the elements' paths; nil when every element is NULL.
    package static func compositeValue(
        _ elements: [CompositeElementColumn], read: (CompositeElementColumn) throws -> (any Sendable)?
    ) rethrows -> (any Sendable)? {
        var result: [String: any Sendable]?
        for element in elements {
            guard let value = try read(element) else { continue }
            result = CompositeAttributeDescription.setting(value, at: element.path[...], in: result)
        }
        return result
    }
}
