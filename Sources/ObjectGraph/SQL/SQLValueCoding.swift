import Foundation

/// Converts attribute values between their canonical Swift representation and the values SQL stores bind
/// (``SQLValue``): one copy of the storage rules for every SQL store.
///
/// | attribute type | stored as |
/// | --- | --- |
/// | integers, Boolean | INTEGER |
/// | double, float | REAL |
/// | date | REAL, seconds since 2001-01-01 00:00 UTC (Core Data's `TIMESTAMP`) |
/// | decimal | its text (a BLOB of its text past 15 significant digits, for SQLite's NUMERIC affinity) |
/// | string | TEXT, normalized to NFC (SQL comparisons of NFC text match Swift's) |
/// | binary data, UUID | BLOB (a UUID is its 16 bytes) |
/// | URI | TEXT (the absolute string) |
/// | object ID | TEXT (the URI) |
/// | transformable | BLOB: an `NSKeyedArchiver` archive of the value, as Core Data's default transformers write it (`PropertyListCoding`) |
package enum SQLValueCoding {
    /// The value to bind for an attribute value; throws for a transformable value that cannot be archived.
    package static func sqlValue(_ value: Any?, kind: ColumnKind) throws -> SQLValue {
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
        case .data, .externalData:
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
        throw StoreError(
            code: .unsupportedRequest,
            message: "A value of type \(type(of: value)) cannot be stored in a \(kind) column.")
    }

    /// The canonical value of a stored value of a column kind; `nil` for NULL or an unreadable value.
    package static func value(_ stored: SQLValue, kind: ColumnKind) -> (any Sendable)? {
        switch (kind, stored) {
        case (_, .null): return nil
        case (.integer, .integer(let int)): return Int(int)
        case (.integer, .real(let real)): return Int(exactly: real)
        case (.boolean, .integer(let int)): return int != 0
        case (.real, .real(let real)): return real
        case (.real, .integer(let int)): return Double(int)
        case (.float, .real(let real)): return Float(real)
        case (.float, .integer(let int)): return Float(int)
        case (.date, .real(let real)): return Date(timeIntervalSinceReferenceDate: real)
        case (.date, .integer(let int)): return Date(timeIntervalSinceReferenceDate: Double(int))
        case (.decimal, .integer(let int)): return Decimal(int)
        case (.decimal, .real(let real)): return Decimal(real)
        case (.decimal, .text(let text)): return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case (.decimal, .blob(let data)):
            return Decimal(string: String(decoding: data, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX"))
        case (.string, .text(let text)): return text
        case (.data, .blob(let data)), (.externalData, .blob(let data)): return data
        case (.uuid, .blob(let data)):
            guard data.count == 16 else { return nil }
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case (.uuid, .text(let text)): return UUID(uuidString: text)
        case (.url, .text(let text)): return URL(string: text)
        case (.objectID, .text(let text)): return URL(string: text).flatMap(ManagedObjectID.init(uriRepresentation:))
        case (.transformable, .blob(let data)): return PropertyListCoding.decode(data)
        default: return nil
        }
    }

    /// A string in NFC; ASCII strings are returned as they are.
    package static func normalized(_ string: String) -> String {
        var string = string
        if string.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) { return string }
        return string.precomposedStringWithCanonicalMapping
    }

}

/// Number conversions for values of other numeric types than the canonical one.
package enum NumericConversion {
    package static func int64(_ value: Any) -> Int64? {
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

    package static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as Decimal: NSDecimalNumber(decimal: v).doubleValue
        default: int64(value).map(Double.init)
        }
    }
}
