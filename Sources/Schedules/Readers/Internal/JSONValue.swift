import Foundation

/// Lenient conversions of `JSONSerialization` values.
enum JSONValue {
    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as NSNumber:
            let double = number.doubleValue
            if double == double.rounded(), abs(double) < 9e15 { return String(number.int64Value) }
            return number.stringValue
        default: return nil
        }
    }

    static func int(_ value: Any?) -> Int? {
        switch value {
        case let number as NSNumber: return number.intValue
        case let text as String: return Int(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// JSON `true`, a non-zero number, or the text `true`/`yes`/`1`.
    static func flag(_ value: Any?) -> Bool {
        switch value {
        case let number as NSNumber: return number.boolValue
        case let text as String: return FieldText.flag(text)
        default: return false
        }
    }
}
