import Foundation

/// Transformable values in SQL stores: written as Core Data's default transformers write them, an
/// `NSKeyedArchiver` archive of the value (``KeyedArchiveValues``: strings, numbers, Booleans, dates, data, UUIDs,
/// URLs, arrays and dictionaries with string keys), so that Core Data reads them; read from such archives, and from
/// the plain binary property lists these stores wrote before.
package enum PropertyListCoding {
    package static func encode(_ value: Any) throws -> Data {
        if let archived = value as? UndecodedTransformable { return archived.data }
        do {
            return try KeyedArchiveValues.archive(value)
        } catch {
            throw StoreError(
                code: .unsupportedRequest,
                message:
                    "A transformable value of type \(type(of: value)) cannot be archived (\(error.description); SQL "
                    + "stores save strings, numbers, dates, data, UUIDs, URLs, arrays and string-keyed dictionaries).")
        }
    }

    /// The decoded value with Swift types (`Int`, `Double`, `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, arrays,
    /// dictionaries): of a keyed archive of those, or of a plain property list. Anything else (an archive of other
    /// classes, what an app's own value transformer wrote) reads as an ``UndecodedTransformable`` of its bytes, which
    /// ``encode(_:)`` writes back as they were: reading nil instead would erase the value at the object's next save.
    package static func decode(_ data: Data) -> (any Sendable)? {
        if let value = decodeArchive(data) { return value }
        guard let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
            let decoded = sendable(value)
        else { return UndecodedTransformable(data: data, rootClassName: nil) }
        return decoded
    }

    /// The value of a keyed archive (an ``UndecodedTransformable`` for one of other classes); `nil` when the data is no
    /// keyed archive.
    package static func decodeArchive(_ data: Data) -> (any Sendable)? {
        guard data.starts(with: Self.binaryHeader), let archive = try? KeyedArchive(data: data) else { return nil }
        if let value = try? KeyedArchiveValues.value(of: archive) { return value }
        return UndecodedTransformable(data: data, rootClassName: archive.object(archive.rootUID)?.className)
    }

    private static let binaryHeader = Array("bplist00".utf8)

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
