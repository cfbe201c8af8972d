import Foundation

/// Writes binary property lists (`bplist00`), UIDs included, which Foundation's serializer cannot write: what
/// ``BinaryPropertyList`` reads, and Foundation and Apple's tools read too.
package enum BinaryPropertyListWriter {
    /// The list whose top object is `value`. Dictionaries are written with their keys sorted, so the same value
    /// always gives the same bytes; `.null` is written as the format's null marker.
    package static func encode(_ value: PropertyListValue) -> Data {
        // Objects are numbered depth-first, each before its children; a collection keeps its children's numbers.
        var objects: [(value: PropertyListValue, children: [Int])] = []
        func add(_ value: PropertyListValue) -> Int {
            let index = objects.count
            objects.append((value, []))
            var children: [Int] = []
            switch value {
            case .array(let elements):
                children = elements.map { add($0) }
            case .dictionary(let entries):
                let keys = entries.keys.sorted()
                children = keys.map { add(.string($0)) } + keys.map { add(entries[$0]!) }
            default:
                break
            }
            objects[index].children = children
            return index
        }
        _ = add(value)
        let referenceSize = byteCount(for: objects.count - 1)
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for (value, children) in objects {
            offsets.append(bytes.count)
            write(value, children: children, referenceSize: referenceSize, into: &bytes)
        }
        let tableOffset = bytes.count
        let offsetSize = byteCount(for: tableOffset)
        for offset in offsets { appendBigEndian(offset, size: offsetSize, to: &bytes) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        appendBigEndian(objects.count, size: 8, to: &bytes)
        appendBigEndian(0, size: 8, to: &bytes)
        appendBigEndian(tableOffset, size: 8, to: &bytes)
        return Data(bytes)
    }

    private static func write(
        _ value: PropertyListValue, children: [Int], referenceSize: Int,
        into bytes: inout [UInt8]
    ) {
        switch value {
        case .null:
            bytes.append(0x00)
        case .bool(let flag):
            bytes.append(flag ? 0x09 : 0x08)
        case .integer(let number):
            appendInteger(number, to: &bytes)
        case .real(let number):
            bytes.append(0x23)
            appendBigEndian(Int(bitPattern: UInt(number.bitPattern)), size: 8, to: &bytes)
        case .date(let date):
            bytes.append(0x33)
            appendBigEndian(
                Int(bitPattern: UInt(date.timeIntervalSinceReferenceDate.bitPattern)), size: 8,
                to: &bytes)
        case .data(let data):
            appendMarker(0x40, count: data.count, to: &bytes)
            bytes.append(contentsOf: data)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: string.utf8.count, to: &bytes)
                bytes.append(contentsOf: string.utf8)
            } else {
                let units = Array(string.utf16)
                appendMarker(0x60, count: units.count, to: &bytes)
                for unit in units { bytes.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)]) }
            }
        case .uid(let uid):
            let size = byteCount(for: uid)
            bytes.append(0x80 | UInt8(size - 1))
            appendBigEndian(uid, size: size, to: &bytes)
        case .array:
            appendMarker(0xA0, count: children.count, to: &bytes)
            for child in children { appendBigEndian(child, size: referenceSize, to: &bytes) }
        case .dictionary:
            appendMarker(0xD0, count: children.count / 2, to: &bytes)
            for child in children { appendBigEndian(child, size: referenceSize, to: &bytes) }
        }
    }

    /// An integer: 1, 2 or 4 bytes (read as unsigned) when it fits, otherwise 8 (two's complement).
    private static func appendInteger(_ number: Int64, to bytes: inout [UInt8]) {
        let size = number < 0 || number > Int64(UInt32.max) ? 8 : byteCount(for: Int(number))
        bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendBigEndian(Int(number), size: size, to: &bytes)
    }

    /// A marker whose low four bits hold the count, or 0xF followed by the count as an integer object.
    private static func appendMarker(_ marker: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(marker | UInt8(count))
        } else {
            bytes.append(marker | 0x0F)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    /// The bytes needed for a non-negative number: 1, 2, 4 or 8.
    private static func byteCount(for number: Int) -> Int {
        switch number {
        case ...0xFF: 1
        case ...0xFFFF: 2
        case ...0xFFFF_FFFF: 4
        default: 8
        }
    }

    private static func appendBigEndian(_ number: Int, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: number >> shift))
        }
    }
}

/// Builds an `NSKeyedArchiver` archive from archived objects made by hand (class names, keyed values, UIDs), for
/// archives whose classes Foundation on Linux lacks; ``KeyedArchive`` reads them back.
package struct KeyedArchiveWriter {
    /// `$objects`: UID 0 is `$null`, as in every keyed archive.
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classUIDs: [String: Int] = [:]
    private var stringUIDs: [String: Int] = [:]

    package init() {}

    /// A UID for an object to be set later with ``set(_:className:superclasses:values:)`` (for objects that refer
    /// to each other).
    package mutating func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    /// Sets a reserved object: its class (with its superclasses, as `$classes` lists them) and keyed values.
    package mutating func set(
        _ uid: Int, className: String, superclasses: [String] = ["NSObject"],
        values: [String: PropertyListValue]
    ) {
        var values = values
        values["$class"] = .uid(classUID(className, superclasses: superclasses))
        objects[uid] = .dictionary(values)
    }

    /// Adds an object; returns its UID.
    package mutating func add(
        className: String, superclasses: [String] = ["NSObject"],
        values: [String: PropertyListValue]
    ) -> Int {
        let uid = reserve()
        set(uid, className: className, superclasses: superclasses, values: values)
        return uid
    }

    /// A reference to a string object (each string is archived once).
    package mutating func string(_ string: String) -> PropertyListValue {
        .uid(stringUID(string))
    }

    /// The UID of a string object (each string is archived once).
    package mutating func stringUID(_ string: String) -> Int {
        if let uid = stringUIDs[string] { return uid }
        objects.append(.string(string))
        stringUIDs[string] = objects.count - 1
        return objects.count - 1
    }

    /// Adds a value kept inline in `$objects` (a number, a Boolean, data); returns its UID.
    package mutating func addValue(_ value: PropertyListValue) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// An `NSArray` of the objects with these UIDs.
    package mutating func array(_ uids: [Int]) -> PropertyListValue {
        .uid(arrayUID(uids))
    }

    /// The UID of a new `NSArray` of the objects with these UIDs.
    package mutating func arrayUID(_ uids: [Int]) -> Int {
        add(className: "NSArray", values: ["NS.objects": .array(uids.map { .uid($0) })])
    }

    /// An `NSDictionary` of string keys and the objects with these UIDs, in the order given.
    package mutating func dictionary(_ entries: [(key: String, uid: Int)]) -> PropertyListValue {
        .uid(dictionaryUID(entries))
    }

    /// The UID of a new `NSDictionary` of string keys and the objects with these UIDs, in the order given.
    package mutating func dictionaryUID(_ entries: [(key: String, uid: Int)]) -> Int {
        var keys: [PropertyListValue] = []
        for entry in entries { keys.append(string(entry.key)) }
        return add(
            className: "NSDictionary",
            values: [
                "NS.keys": .array(keys),
                "NS.objects": .array(entries.map { .uid($0.uid) }),
            ])
    }

    /// The archive as a binary property list, with the object `root` at its top.
    package func encoded(root: Int) -> Data {
        BinaryPropertyListWriter.encode(
            .dictionary([
                "$version": .integer(100_000),
                "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": .uid(root)]),
                "$objects": .array(objects),
            ]))
    }

    private mutating func classUID(_ name: String, superclasses: [String]) -> Int {
        if let uid = classUIDs[name] { return uid }
        objects.append(
            .dictionary([
                "$classname": .string(name),
                "$classes": .array(([name] + superclasses).map { .string($0) }),
            ]))
        classUIDs[name] = objects.count - 1
        return objects.count - 1
    }
}
