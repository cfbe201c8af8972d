import Foundation
import ObjectGraph

/// Attribute defaults and bounds as Xcode writes them in model files.
///
/// - `defaultValueString`: numbers in plain decimal (`0`, `3.5`), Booleans as `YES`/`NO`, strings as they are,
///   UUIDs and URIs as text. Date defaults and bounds are not here but in `defaultDateTimeInterval`,
///   `minDateTimeInterval` and `maxDateTimeInterval`, seconds since 2001-01-01 00:00:00 UTC (`631152000`).
/// - `minValueString`/`maxValueString`: numbers for numeric attributes, lengths for strings and binary data.
enum ModelValueFormat {
    /// The default value a `defaultValueString` gives an attribute of `type`: `.some(nil)` when the text means
    /// no default (empty, or a type that has no textual default), `nil` when it is malformed.
    static func defaultValue(_ text: String, type: AttributeType) -> (any Sendable)?? {
        if text.isEmpty, type != .string { return .some(nil) }
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            return number(text, type: type).map { .some($0) }
        case .boolean:
            return XMLNumberFormat.bool(text).map { .some($0) }
        case .string:
            return .some(text)
        case .uuid:
            return UUID(uuidString: text).map { .some($0) }
        case .uri:
            return URL(string: text).map { .some($0) }
        case .date, .binaryData, .transformable, .undefined, .objectID, .composite:
            return .some(nil)  // e.g. the legacy "now" of dates; Xcode keeps binary defaults nowhere
        }
    }

    /// A minimum or maximum: the type's number, or a length (`Int`) for strings and binary data.
    static func bound(_ text: String, type: AttributeType) -> (any Sendable)? {
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            return number(text, type: type)
        default:
            return XMLNumberFormat.integer(text)
        }
    }

    /// A number of an attribute type in its canonical representation (`Int`, `Double`, `Float`, `Decimal`).
    static func number(_ text: String, type: AttributeType) -> (any Sendable)? {
        switch type {
        case .decimal:
            return XMLNumberFormat.decimal(text)
        case .float:
            return Float(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .double:
            return XMLNumberFormat.double(text)
        default:
            if let int = XMLNumberFormat.integer(text) { return type.coerce(int) }
            return XMLNumberFormat.double(text).flatMap { type.coerce($0) }
        }
    }

    /// The text of a default value (`defaultValueString`), or `nil` when the value has no textual form.
    static func string(fromDefault value: Any, type: AttributeType) -> String? {
        switch value {
        case let bool as Bool where type == .boolean: bool ? "YES" : "NO"
        case let date as Date: XMLNumberFormat.timeIntervalString(from: date.timeIntervalSinceReferenceDate)
        default:
            string(fromNumber: value) ?? (value as? String) ?? (value as? UUID)?.uuidString
                ?? (value as? URL)?.absoluteString
        }
    }

    /// The text of a number (`minValueString`, `maxValueString`, numeric defaults).
    static func string(fromNumber value: Any) -> String? {
        switch value {
        case let int as Int: String(int)
        case let double as Double: XMLNumberFormat.string(from: double)
        case let float as Float: XMLNumberFormat.string(from: float)
        case let decimal as Decimal: decimal.description
        case let int as Int64: String(int)
        case let int as Int32: String(int)
        case let int as Int16: String(int)
        default: nil
        }
    }
}
