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
/// | URI | TEXT (the absolute string) |
/// | object ID | TEXT (the URI) |
/// | transformable | BLOB: a binary property list of the value |
enum ValueCoding {
    /// The value to bind for an attribute value; throws for a transformable value that is not a property list.
    static func sqliteValue(_ value: Any?, kind: ColumnKind) throws -> SQLiteValue {
        guard let value else { return .null }
        switch kind {
        case .integer:
            if let int = value as? Int { return .integer(Int64(int)) }
            if let number = NumericConversion.int64(value) { return .integer(number) }
        case .boolean:
            if let bool = value as? Bool { return .integer(bool ? 1 : 0) }
            if let number = NumericConversion.int64(value) { return .integer(number == 0 ? 0 : 1) }
        case .real, .float:
            if let double = value as? Double { return .real(double) }
            if let float = value as? Float { return .real(Double(float)) }
            if let number = NumericConversion.double(value) { return .real(number) }
        case .decimal:
            guard let decimal = value as? Decimal ?? NumericConversion.double(value).map({ Decimal($0) }) else { break }
            // SQLite's NUMERIC affinity turns well-formed numeric text into a REAL, which keeps 15 significant
            // digits; longer decimals are stored as the bytes of their text so that nothing is lost.
            let text = decimal.description
            let digits = text.filter(\.isNumber).drop { $0 == "0" }.count
            return digits > 15 ? .blob(Data(text.utf8)) : .text(text)
        case .string:
            if let string = value as? String { return .text(normalized(string)) }
        case .date:
            if let date = value as? Date { return .real(date.timeIntervalSinceReferenceDate) }
        case .data:
            if let data = value as? Data { return .blob(data) }
        case .uuid:
            if let uuid = value as? UUID { return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) }
        case .url:
            if let url = value as? URL { return .text(url.absoluteString) }
        case .objectID:
            if let id = value as? ManagedObjectID { return .text(id.uriRepresentation().absoluteString) }
        case .transformable:
            return .blob(try PropertyListCoding.encode(value))
        }
        throw StoreError(code: .unsupportedRequest,
                         message: "A value of type \(type(of: value)) cannot be stored in a \(kind) column.")
    }

    /// A string in NFC; ASCII strings are returned as they are.
    static func normalized(_ string: String) -> String {
        var string = string
        if string.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) { return string }
        return string.precomposedStringWithCanonicalMapping
    }

    /// Binds an attribute value, as ``sqliteValue(_:kind:)`` converts it; the canonical types of the common kinds
    /// are bound directly, without a dynamic cast or an intermediate ``SQLiteValue``.
    static func bind(_ value: any Sendable, kind: ColumnKind, to statement: SQLiteStatement,
                     at index: Int32) throws {
        if try bindCanonical(value, kind: kind, to: statement, at: index) { return }
        try statement.bind(try sqliteValue(value, kind: kind), at: index)
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
        case .string:
            guard let value = value as? String else { return false }
            try statement.bind(normalized(value), at: index)
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

/// Number conversions for values of other numeric types than the canonical one.
enum NumericConversion {
    static func int64(_ value: Any) -> Int64? {
        switch value {
        case let v as Int: Int64(v)
        case let v as Int64: v
        case let v as Int32: Int64(v)
        case let v as Int16: Int64(v)
        case let v as Int8: Int64(v)
        case let v as UInt8: Int64(v)
        case let v as UInt16: Int64(v)
        case let v as UInt32: Int64(v)
        case let v as UInt: Int64(exactly: v)
        case let v as UInt64: Int64(exactly: v)
        case let v as Bool: v ? 1 : 0
        case let v as Double: Int64(exactly: v)
        case let v as Decimal: Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        default: nil
        }
    }

    static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as Decimal: NSDecimalNumber(decimal: v).doubleValue
        default: int64(value).map(Double.init)
        }
    }
}
