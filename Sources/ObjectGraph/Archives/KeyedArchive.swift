import Foundation

/// An `NSKeyedArchiver` archive read without Foundation's unarchiver (which on Linux reads none of Apple's
/// classes): objects by UID, each with its class name and its keyed values.
package struct KeyedArchive {
    /// An archived object: its class and its encoded values.
    package struct Object {
        package let uid: Int
        package let className: String?
        package let values: [String: PropertyListValue]
    }

    private let objects: [PropertyListValue]
    /// The UID of the root object.
    package let rootUID: Int

    /// Reads an archive from a binary property list.
    package init(data: Data) throws(BinaryPropertyList.FormatError) {
        let top = try BinaryPropertyList.parse(data)
        guard let archive = top.dictionary, let objects = archive["$objects"]?.array,
            let root = archive["$top"]?.dictionary?["root"]?.uid ?? archive["$top"]?.dictionary?.values.first?.uid
        else { throw BinaryPropertyList.FormatError(description: "not a keyed archive ($objects, $top)") }
        self.objects = objects
        rootUID = root
    }

    /// The value at a UID: `nil` for `$null` or a UID out of range.
    package func value(_ uid: Int) -> PropertyListValue? {
        guard uid > 0, uid < objects.count else { return nil }
        if case .string("$null") = objects[uid] { return nil }
        return objects[uid]
    }

    /// The object at a UID, when it is an archived object (a dictionary with `$class`).
    package func object(_ uid: Int) -> Object? {
        guard let values = value(uid)?.dictionary else { return nil }
        return Object(uid: uid, className: className(of: values), values: values)
    }

    /// The class name of an archived object's values (`$class`, through its UID).
    private func className(of values: [String: PropertyListValue]) -> String? {
        values["$class"]?.uid.flatMap { value($0)?.dictionary?["$classname"]?.string }
    }

    /// What a key of an object refers to, followed through its UID.
    package func resolve(_ value: PropertyListValue?) -> PropertyListValue? {
        guard let value else { return nil }
        if let uid = value.uid { return self.value(uid) }
        return value
    }

    /// A string value of an object (through its UID).
    package func string(_ object: Object, _ key: String) -> String? {
        string(resolve(object.values[key]))
    }

    /// The string a value holds: a plain string, or an archived string object, as `NSKeyedArchiver` writes an
    /// `NSMutableString` (`NS.string`; Core Data's model caches hold some: knowledgeC's renaming identifiers and
    /// version hash modifiers), or an `NSString` or `NSMutableString` of UTF-8 bytes (`NS.bytes`).
    package func string(_ value: PropertyListValue?) -> String? {
        switch value {
        case .string(let string)?:
            return string
        case .dictionary(let object)?:
            if case .string(let string)? = resolve(object["NS.string"]) { return string }
            let className = className(of: object)
            guard className == "NSString" || className == "NSMutableString",
                case .data(let bytes)? = resolve(object["NS.bytes"])
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        default:
            return nil
        }
    }

    /// The object a key of an object refers to.
    package func object(_ object: Object, _ key: String) -> Object? {
        object.values[key]?.uid.flatMap { self.object($0) }
    }

    /// The elements of an archived collection (`NSArray`, `NSSet`, their mutable kinds: `NS.objects`), or the
    /// values of a dictionary (`NSDictionary`: `NS.objects`; `NSKnownKeysDictionary1`: `values`), as UIDs.
    package func elementUIDs(of collection: Object?) -> [Int] {
        guard let collection else { return [] }
        if let list = collection.values["NS.objects"]?.array { return list.compactMap(\.uid) }
        switch resolve(collection.values["values"]) {
        case .array(let list)?: return list.compactMap(\.uid)
        case .dictionary(let inner)?: return inner["NS.objects"]?.array?.compactMap(\.uid) ?? []
        default: return []
        }
    }

    /// The keys and value UIDs of an archived dictionary (`NS.keys`/`NS.objects`).
    package func entries(of dictionary: Object?) -> [(key: String, uid: Int)] {
        guard let dictionary, let keys = dictionary.values["NS.keys"]?.array,
            let values = dictionary.values["NS.objects"]?.array
        else { return [] }
        return zip(keys, values).compactMap { key, value in
            guard let name = string(resolve(key)), let uid = value.uid else { return nil }
            return (name, uid)
        }
    }
}
