import Foundation

/// Lenient conversions of the values `JSONSerialization` hands the frab JSON reader: numbers written as strings and
/// strings written as numbers are both taken.
///
/// Not the wire's `JSONValue` (AlmanacWire), and named apart from it on purpose: the two JSON stacks stay separate.
/// Schedules reads files published by others through Foundation's parser and bends to their habits, while the wire
/// module parses the daemon's own protocol strictly (exact 64-bit integers, ordered keys) and must stay free of the
/// framework; sharing one would make the reader depend on the wire module, or the wire on the readers' leniency.
enum LenientJSON {
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
