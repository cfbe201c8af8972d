import Foundation
import ObjectGraph
import PostgresNIO

/// Reads rows of a `SELECT` laid out by a `SQLRecordLayout` into `StoreRecord`s laid out by their entity's keys
/// (a context applies such rows by position, without a dictionary per record).
struct PostgresRecordReader {
    let layout: SQLRecordLayout

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    var columns: [String] { layout.columns }

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(
        schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
        properties: Set<String>?
    ) {
        layout = SQLRecordLayout(
            schema: schema, entities: entities, alias: alias, aliases: aliases, properties: properties,
            dialect: PostgresDialect())
    }

    /// The record of a row (its cells), whose key and entity number the caller read.
    func record(_ cells: [PostgresCell], id: ManagedObjectID, entityNumber: Int64, ids: StoreIDs) throws
        -> StoreRecord
    {
        let version = try cells[2].decode(Int64.self)
        guard let plan = layout.plan(forEntityNumber: entityNumber) else {
            return StoreRecord(objectID: id, version: version)
        }
        let row = try plan.row { read, index in
            if let kind = read.kind { return try Self.attribute(cells[read.column], kind: kind) }
            return try Self.relationship(plan.fields[index], cells: cells, ids: ids)
        }
        return StoreRecord(objectID: id, version: version, keys: plan.keys, row: row)
    }

    /// An attribute's value: the common kinds straight from their binary cells (`BIGINT`, `DOUBLE PRECISION`,
    /// `TEXT`), the others through `SQLValueCoding`; `nil` for NULL.
    @inline(__always)
    private static func attribute(_ cell: PostgresCell, kind: ColumnKind) throws -> (any Sendable)? {
        guard var bytes = cell.bytes else { return nil }
        switch (kind, cell.dataType, cell.format) {
        case (.integer, .int8, .binary):
            if let integer = bytes.readInteger(as: Int64.self) { return Int(integer) }
        case (.boolean, .int8, .binary):
            if let integer = bytes.readInteger(as: Int64.self) { return integer != 0 }
        case (.real, .float8, .binary):
            if let bits = bytes.readInteger(as: UInt64.self) { return Double(bitPattern: bits) }
        case (.date, .float8, .binary):
            if let bits = bytes.readInteger(as: UInt64.self) {
                return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
            }
        case (.string, .text, _):
            return bytes.readString(length: bytes.readableBytes)
        default:
            break
        }
        return SQLValueCoding.value(try SQLValue(cell), kind: kind)
    }

    /// A relationship field of a row: a destination ID, or a list of them; `nil` for none.
    private static func relationship(_ field: SQLRecordLayout.Field, cells: [PostgresCell], ids: StoreIDs) throws
        -> (any Sendable)?
    {
        if case .composite(let elements) = field.value {
            return try SQLRecordLayout.compositeValue(elements) { try attribute(cells[$0.column], kind: $0.kind) }
        }
        let stored = try SQLValue(cells[field.column])
        switch field.value {
        case .attribute, .composite:
            return nil
        case .toOne(let entityColumn, let destination):
            guard case .integer(let key) = stored else { return nil }
            var entityNumber: Int64?
            if let entityColumn, case .integer(let number) = try SQLValue(cells[entityColumn]) {
                entityNumber = number
            }
            return SQLRecordLayout.destination(
                key: key, entityNumber: entityNumber, destination: destination, ids: ids)
        case .toMany(let destination):
            guard case .text(let list) = stored, !list.isEmpty else { return nil }
            return SQLRecordLayout.parseList(list, destination: destination, ids: ids)
        }
    }
}
