import CSQLite
import Foundation
import ObjectGraph

/// Converts attribute values between their canonical Swift representation and SQLite storage.
///
/// | attribute type | stored as |
/// | --- | --- |
/// | integers, Boolean | INTEGER |
/// | double, float | REAL (`FLOAT` columns) |
/// | date | REAL, seconds since 2001-01-01 00:00 UTC (Core Data's `TIMESTAMP`) |
/// | decimal | its text in a `DECIMAL` column (NUMERIC affinity: values of up to 15 significant digits become numbers); longer decimals as a BLOB of their text, so nothing is lost. Predicates on decimals are evaluated in memory |
/// | string | TEXT, normalized to NFC (Swift's `String` equality is canonical equivalence, so values compare equal after a round trip, and SQL comparisons match Swift's) |
/// | binary data, UUID | BLOB (a UUID is its 16 bytes) |
/// | binary data allowing external storage | BLOB in Core Data's form: a marker byte, then the bytes or a file's name (``ExternalBinaryData``) |
/// | URI | TEXT (the absolute string) |
/// | object ID | TEXT (the URI) |
/// | transformable | BLOB: an `NSKeyedArchiver` archive of the value, as Core Data's default transformers write it (`PropertyListCoding`) |
enum ValueCoding {
    /// Binds an attribute value, as `SQLValueCoding.sqlValue(_:kind:)` converts it; the canonical types of the common kinds
    /// are bound directly, without a dynamic cast or an intermediate ``SQLValue``.
    static func bind(_ value: any Sendable, kind: ColumnKind, to statement: SQLiteStatement,
                     at index: Int32) throws {
        if try bindCanonical(value, kind: kind, to: statement, at: index) { return }
        try statement.bind(try SQLValueCoding.sqlValue(value, kind: kind), at: index)
    }

    /// Binds `value` when it is of the canonical type of `kind`; returns false otherwise (one cast, to the type the
    /// column's kind names).
    private static func bindCanonical(_ value: any Sendable, kind: ColumnKind, to statement: SQLiteStatement,
                                      at index: Int32) throws -> Bool {
        switch kind {
        case .integer:
            guard let value = value as? Int else { return false }
            try statement.bind(Int64(value), at: index)
        case .boolean:
            guard let value = value as? Bool else { return false }
            try statement.bind(value, at: index)
        case .real:
            guard let value = value as? Double else { return false }
            try statement.bind(value, at: index)
        case .date:
            guard let value = value as? Date else { return false }
            try statement.bind(value.timeIntervalSinceReferenceDate, at: index)
        case .externalData:
            guard let value = value as? Data else { return false }
            try statement.bind(.blob(try statement.externalData.storedValue(of: value)), at: index)
        case .string:
            guard let value = value as? String else { return false }
            try statement.bind(SQLValueCoding.normalized(value), at: index)
        default:
            return false
        }
        return true
    }

    /// Reads a column of the current row as the attribute's canonical value; `nil` for NULL or an unreadable
    /// value (a foreign file may hold anything).
    static func read(_ statement: SQLiteStatement, at index: Int32, kind: ColumnKind) -> (any Sendable)? {
        let type = sqlite3_column_type(statement.handle, index)
        if type == SQLITE_NULL { return nil }
        switch kind {
        case .integer:
            return Int(sqlite3_column_int64(statement.handle, index))
        case .boolean:
            return sqlite3_column_int64(statement.handle, index) != 0
        case .real:
            return sqlite3_column_double(statement.handle, index)
        case .float:
            return Float(sqlite3_column_double(statement.handle, index))
        case .date:
            return Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement.handle, index))
        case .decimal:
            if type == SQLITE_INTEGER { return Decimal(sqlite3_column_int64(statement.handle, index)) }
            let text = type == SQLITE_BLOB ? statement.data(at: index).map { String(decoding: $0, as: UTF8.self) }
                : statement.string(at: index)
            guard let text else { return nil }
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .string:
            return statement.string(at: index)
        case .data:
            return statement.data(at: index)
        case .externalData:
            guard let bytes = sqlite3_column_blob(statement.handle, index) else { return Data() }
            let count = Int(sqlite3_column_bytes(statement.handle, index))
            return statement.externalData.value(stored: UnsafeRawBufferPointer(start: bytes, count: count))
        case .uuid:
            guard let data = statement.data(at: index), data.count == 16 else {
                return statement.string(at: index).flatMap(UUID.init(uuidString:))
            }
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .url:
            return statement.string(at: index).flatMap { URL(string: $0) }
        case .objectID:
            return statement.string(at: index).flatMap { URL(string: $0) }.flatMap(ManagedObjectID.init(uriRepresentation:))
        case .transformable:
            guard let data = statement.data(at: index) else { return nil }
            return PropertyListCoding.decode(data)
        }
    }
}
