import CSQLite
import Foundation
import ObjectGraph

/// Reads rows of a `SELECT` laid out by a ``SQLRecordLayout`` into ``StoreRecord``s, straight from SQLite's
/// columns.
struct RecordReader {
    let layout: SQLRecordLayout

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    var columns: [String] { layout.columns }

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
         properties: Set<String>?) {
        layout = SQLRecordLayout(schema: schema, entities: entities, alias: alias, aliases: aliases,
                                 properties: properties, dialect: SQLiteDialect())
    }

    /// The record of the current row, whose key, entity number and entity name the caller read.
    func record(_ statement: SQLiteStatement, id: ManagedObjectID, entityNumber: Int64,
                schema: SQLSchema, ids: StoreIDs) -> StoreRecord {
        guard let plan = layout.plan(forEntityNumber: entityNumber) else {
            return StoreRecord(objectID: id, version: statement.int64(at: 2))
        }
        let handle = statement.handle
        let row = plan.row { read, index in
            Self.value(read, of: handle, statement: statement) {
                Self.relationship(plan.fields[index], statement: statement, ids: ids)
            }
        }
        return StoreRecord(objectID: id, version: statement.int64(at: 2), keys: plan.keys, row: row)
    }

    /// One attribute of the current row; `relationship` reads any other field.
    @inline(__always)
    private static func value(_ read: SQLRecordLayout.EntityPlan.Read, of handle: OpaquePointer,
                              statement: SQLiteStatement, relationship: () -> (any Sendable)?) -> (any Sendable)? {
        let column = Int32(truncatingIfNeeded: read.column)
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
    private static func relationship(_ field: SQLRecordLayout.Field, statement: SQLiteStatement, ids: StoreIDs)
        -> (any Sendable)?
    {
        let column = Int32(truncatingIfNeeded: field.column)
        switch field.value {
        case .attribute:
            return nil
        case .toOne(let entityColumn, let destination):
            guard !statement.isNull(at: column) else { return nil }
            let entityNumber = entityColumn.map { Int32(truncatingIfNeeded: $0) }.flatMap {
                statement.isNull(at: $0) ? nil : statement.int64(at: $0)
            }
            return SQLRecordLayout.destination(key: statement.int64(at: column), entityNumber: entityNumber,
                                               destination: destination, ids: ids)
        case .toMany(let destination):
            let handle = statement.handle
            guard let text = sqlite3_column_text(handle, column) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
            guard !bytes.isEmpty else { return nil }
            return SQLRecordLayout.parseList(bytes, destination: destination, ids: ids)
        }
    }
}
