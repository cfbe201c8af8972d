import Foundation

/// Transformable values as binary property lists: strings, numbers, Booleans, dates, data, arrays and
/// dictionaries with string keys.
package enum PropertyListCoding {
    package static func encode(_ value: Any) throws -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        } catch {
            throw StoreError(
                code: .unsupportedRequest,
                message:
                    "A transformable value of type \(type(of: value)) is not a property list (strings, numbers, dates, data, arrays and string-keyed dictionaries); SQL stores cannot save it.",
                cause: error)
        }
    }

    /// The decoded value with Swift types (`Int`, `Double`, `Bool`, `String`, arrays, dictionaries), or `nil` when
    /// the data is not a property list.
    package static func decode(_ data: Data) -> (any Sendable)? {
        guard let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
            return nil
        }
        return sendable(value)
    }

    /// Converts a decoded property list (which may hold `NSNumber`s and `AnyHashable` keys) to Sendable Swift values.
    package static func sendable(_ value: Any) -> (any Sendable)? {
        if type(of: value) == Bool.self, let v = value as? Bool { return v }
        if !(value is String), let v = value as? NSNumber, type(of: value) != Int.self, type(of: value) != Double.self {
            let type = String(cString: v.objCType)
            if type == "c" || type == "B" { return v.boolValue }
            return type == "d" || type == "f" ? v.doubleValue : Int(v.int64Value)
        }
        switch value {
        case let v as String: return v
        case let v as Int: return v
        case let v as Double: return v
        case let v as Date: return v
        case let v as Data: return v
        case let array as [Any]:
            let elements = array.compactMap(sendable)
            if elements.count == array.count, let strings = elements as? [String] { return strings }
            return elements
        case let dictionary as [AnyHashable: Any]:
            var result: [String: any Sendable] = [:]
            for (key, element) in dictionary {
                guard let key = key.base as? String, let element = sendable(element) else { continue }
                result[key] = element
            }
            return result
        default:
            return nil
        }
    }
}
