import Foundation

/// A transformable value kept as the bytes a store holds, because ObjectGraph cannot turn them into Swift values: an
/// `NSKeyedArchiver` archive of classes other than Foundation's property-list classes (an app's own class,
/// `NSColor`, …), or what a value transformer of the app's own wrote.
///
/// Reading such a value from a Core Data store gives this; saving the object again writes the same bytes back, so
/// nothing is lost. ``rootClassName`` says what an archive holds.
public struct UndecodedTransformable: Sendable, Hashable {
    /// The bytes, as the store holds them.
    public let data: Data
    /// The class of the archive's root object (`$classname`), for an archive that names one; `nil` otherwise.
    public let rootClassName: String?

    public init(data: Data, rootClassName: String?) {
        self.data = data
        self.rootClassName = rootClassName
    }
}

/// Transformable values as Core Data keeps them: an `NSKeyedArchiver` archive of the value, as Core Data's default
/// transformers (`NSSecureUnarchiveFromData`, and the older `NSKeyedUnarchiveFromData`) write and read it.
///
/// The classes are those `NSSecureUnarchiveFromDataTransformer` allows: `NSArray`, `NSDictionary` (string keys),
/// `NSSet` and `NSOrderedSet` (read as arrays), `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSUUID` and `NSURL`,
/// their mutable kinds, nested to any depth. In Swift: `String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `UUID`,
/// `URL`, arrays and `[String: …]` dictionaries of them.
package enum KeyedArchiveValues {
    /// Why a value cannot be archived or unarchived in this form.
    package struct Unsupported: Error {
        package var description: String
    }

    /// The most nested collections read or written (a hostile archive may refer to itself).
    static let depthLimit = 64

    // MARK: Reading

    /// The value an archive holds at its root, in Swift types.
    /// - Throws: ``Unsupported`` for an object of another class, a dictionary key that is no string, a `nil` in a
    ///   collection, or collections nested past ``depthLimit``.
    package static func value(of archive: KeyedArchive) throws(Unsupported) -> any Sendable {
        try value(archive, uid: archive.rootUID, depth: 0)
    }

    private static func value(_ archive: KeyedArchive, uid: Int, depth: Int) throws(Unsupported) -> any Sendable {
        guard depth < depthLimit else { throw Unsupported(description: "collections nested too deep") }
        guard let stored = archive.value(uid) else { throw Unsupported(description: "a nil value") }
        switch stored {
        case .string(let string): return string
        case .integer(let integer): return Int(integer)
        case .real(let real): return real
        case .bool(let bool): return bool
        case .data(let data): return data
        case .date(let date): return date
        case .null, .uid, .array: throw Unsupported(description: "a value outside an object")
        case .dictionary:
            guard let object = archive.object(uid), let className = object.className else {
                throw Unsupported(description: "an object without a class")
            }
            return try value(archive, object: object, className: className, depth: depth)
        }
    }

    private static func value(
        _ archive: KeyedArchive, object: KeyedArchive.Object, className: String, depth: Int
    ) throws(Unsupported) -> any Sendable {
        switch className {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            guard let list = object.values["NS.objects"]?.array else {
                throw Unsupported(description: "\(className) without NS.objects")
            }
            var elements: [any Sendable] = []
            for reference in list {
                guard let uid = reference.uid else { throw Unsupported(description: "an element that is no object") }
                elements.append(try value(archive, uid: uid, depth: depth + 1))
            }
            // As property lists read: a list of strings is a [String].
            if let strings = elements as? [String] { return strings }
            return elements
        case "NSDictionary", "NSMutableDictionary":
            guard let keys = object.values["NS.keys"]?.array, let values = object.values["NS.objects"]?.array,
                keys.count == values.count
            else { throw Unsupported(description: "\(className) without matching NS.keys and NS.objects") }
            var dictionary: [String: any Sendable] = [:]
            for (key, element) in zip(keys, values) {
                guard let name = archive.string(archive.resolve(key)) else {
                    throw Unsupported(description: "a dictionary key that is no string")
                }
                guard let uid = element.uid else { throw Unsupported(description: "a value that is no object") }
                dictionary[name] = try value(archive, uid: uid, depth: depth + 1)
            }
            return dictionary
        case "NSString", "NSMutableString":
            guard let string = archive.string(.dictionary(object.values)) else {
                throw Unsupported(description: "\(className) without its characters")
            }
            return string
        case "NSDate":
            guard case .real(let seconds)? = archive.resolve(object.values["NS.time"]) else {
                throw Unsupported(description: "NSDate without NS.time")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case "NSData", "NSMutableData":
            guard case .data(let data)? = archive.resolve(object.values["NS.data"] ?? object.values["NS.bytes"]) else {
                throw Unsupported(description: "\(className) without its bytes")
            }
            return data
        case "NSUUID":
            guard case .data(let bytes)? = archive.resolve(object.values["NS.uuidbytes"]), bytes.count == 16 else {
                throw Unsupported(description: "NSUUID without its 16 bytes")
            }
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case "NSURL":
            guard let relative = archive.string(archive.resolve(object.values["NS.relative"])) else {
                throw Unsupported(description: "NSURL without NS.relative")
            }
            var base: URL?
            if let baseUID = object.values["NS.base"]?.uid, archive.value(baseUID) != nil {
                guard let url = try value(archive, uid: baseUID, depth: depth + 1) as? URL else {
                    throw Unsupported(description: "an NSURL base that is no URL")
                }
                base = url
            }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw Unsupported(description: "an NSURL that is no URL")
            }
            return base == nil ? url : url.absoluteURL
        default:
            throw Unsupported(description: "an object of class \(className)")
        }
    }

    // MARK: Writing

    /// An archive of a value, as Foundation's `NSKeyedArchiver` writes one (strings, numbers and data inline in
    /// `$objects`, the other values as objects of their Foundation class).
    /// - Throws: ``Unsupported`` for a value of another type, or collections nested past ``depthLimit``.
    package static func archive(_ value: Any) throws(Unsupported) -> Data {
        var writer = KeyedArchiveWriter()
        let root = try add(value, to: &writer, depth: 0)
        return writer.encoded(root: root)
    }

    private static func add(_ value: Any, to writer: inout KeyedArchiveWriter, depth: Int) throws(Unsupported)
        -> Int
    {
        guard depth < depthLimit else { throw Unsupported(description: "collections nested too deep") }
        // An NSNumber (from Foundation's property lists) by its own type, as property lists read it: casts would
        // make any of them an Int.
        if type(of: value) is NSNumber.Type, let number = PropertyListCoding.sendable(value) {
            return try add(number, to: &writer, depth: depth)
        }
        switch value {
        case let string as String:
            return writer.stringUID(string)
        case let bool as Bool where type(of: value) == Bool.self:
            return writer.addValue(.bool(bool))
        case let integer as any BinaryInteger:
            return writer.addValue(.integer(Int64(truncatingIfNeeded: integer)))
        case let real as Double:
            return writer.addValue(.real(real))
        case let real as Float:
            return writer.addValue(.real(Double(real)))
        case let data as Data:
            return writer.addValue(.data(data))
        case let date as Date:
            return writer.add(className: "NSDate", values: ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
        case let uuid as UUID:
            return writer.add(
                className: "NSUUID", values: ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
        case let url as URL:
            return writer.add(
                className: "NSURL", values: ["NS.base": .uid(0), "NS.relative": writer.string(url.absoluteString)])
        case let array as [Any]:
            var uids: [Int] = []
            for element in array { uids.append(try add(element, to: &writer, depth: depth + 1)) }
            return writer.arrayUID(uids)
        case let dictionary as [String: Any]:
            var entries: [(key: String, uid: Int)] = []
            // Sorted keys: the same value gives the same bytes.
            for key in dictionary.keys.sorted() {
                entries.append((key, try add(dictionary[key]!, to: &writer, depth: depth + 1)))
            }
            return writer.dictionaryUID(entries)
        default:
            throw Unsupported(description: "a value of type \(type(of: value))")
        }
    }
}
