import Foundation

/// A value of a binary property list (`bplist00`), with the keyed archiver's UIDs kept as such.
package enum PropertyListValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)
    case uid(Int)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    package var string: String? { if case .string(let value) = self { value } else { nil } }
    package var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bool(let value): value ? 1 : 0
        case .real(let value): Int64(exactly: value.rounded())
        default: nil
        }
    }
    package var bool: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(let value): value != 0
        default: nil
        }
    }
    package var array: [PropertyListValue]? { if case .array(let value) = self { value } else { nil } }
    package var dictionary: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }
    package var uid: Int? { if case .uid(let value) = self { value } else { nil } }
}

/// Reads binary property lists (`bplist00`), as `NSKeyedArchiver` writes them; a hostile file gives an error.
package struct BinaryPropertyList {
    /// Why a file is not a readable binary property list.
    package struct FormatError: Error, CustomStringConvertible {
        package var description: String
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let offsets: [Int]
    private var depth = 0

    /// Parses the whole list and returns its top object.
    package static func parse(_ data: Data) throws(FormatError) -> PropertyListValue {
        var list = try BinaryPropertyList(data)
        let top = list.topObject
        return try list.object(top)
    }

    private let topObject: Int

    private init(_ data: Data) throws(FormatError) {
        bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist0".utf8)) else {
            throw FormatError(description: "not a binary property list (no bplist0 header)")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes, trailer + 8, 8)
        let top = Self.bigEndian(bytes, trailer + 16, 8)
        let tableOffset = Self.bigEndian(bytes, trailer + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count < 10_000_000,
            top >= 0, top < count, tableOffset >= 8, tableOffset + count * offsetSize <= trailer
        else { throw FormatError(description: "the trailer of the binary property list is damaged") }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            let offset = Self.bigEndian(bytes, tableOffset + index * offsetSize, offsetSize)
            guard offset >= 8, offset < tableOffset else {
                throw FormatError(description: "object \(index) lies outside the property list")
            }
            offsets.append(offset)
        }
        self.offsets = offsets
        topObject = top
    }

    private static func bigEndian(_ bytes: [UInt8], _ start: Int, _ size: Int) -> Int {
        var value = 0
        for index in start..<(start + size) { value = value << 8 | Int(bytes[index]) }
        return value
    }

    private func check(_ start: Int, _ length: Int) throws(FormatError) {
        guard length >= 0, start >= 0, start + length <= bytes.count - 32 else {
            throw FormatError(description: "an object runs past the end of the property list")
        }
    }

    /// The count of a collection or string and where its contents start.
    private func length(marker: UInt8, at offset: Int) throws(FormatError) -> (count: Int, start: Int) {
        let low = Int(marker & 0x0F)
        guard low == 0x0F else { return (low, offset + 1) }
        try check(offset + 1, 1)
        let intMarker = bytes[offset + 1]
        guard intMarker & 0xF0 == 0x10 else { throw FormatError(description: "a length is not an integer") }
        let size = 1 << Int(intMarker & 0x0F)
        guard size <= 8 else { throw FormatError(description: "a length is too wide") }
        try check(offset + 2, size)
        let count = Self.bigEndian(bytes, offset + 2, size)
        guard count >= 0, count <= bytes.count else { throw FormatError(description: "a length is too large") }
        return (count, offset + 2 + size)
    }

    private mutating func object(_ index: Int) throws(FormatError) -> PropertyListValue {
        guard index >= 0, index < offsets.count else { throw FormatError(description: "a reference is out of range") }
        depth += 1
        defer { depth -= 1 }
        guard depth < 512 else { throw FormatError(description: "the property list nests too deeply") }
        let offset = offsets[index]
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return .null
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16 else { throw FormatError(description: "an integer is too wide") }
            try check(offset + 1, size)
            if size == 16 { return .integer(Int64(truncatingIfNeeded: Self.bigEndian(bytes, offset + 9, 8))) }
            let raw = UInt64(truncatingIfNeeded: Self.bigEndian(bytes, offset + 1, size))
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            try check(offset + 1, size)
            let raw = UInt64(truncatingIfNeeded: Self.bigEndian(bytes, offset + 1, size))
            switch size {
            case 4: return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))))
            case 8: return .real(Double(bitPattern: raw))
            default: throw FormatError(description: "a real number has \(size) bytes")
            }
        case 0x3:
            try check(offset + 1, 8)
            let seconds = Double(bitPattern: UInt64(truncatingIfNeeded: Self.bigEndian(bytes, offset + 1, 8)))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, start) = try length(marker: marker, at: offset)
            try check(start, count)
            return .data(Data(bytes[start..<(start + count)]))
        case 0x5:
            let (count, start) = try length(marker: marker, at: offset)
            try check(start, count)
            return .string(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
        case 0x6:
            let (count, start) = try length(marker: marker, at: offset)
            try check(start, count * 2)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for position in 0..<count {
                units.append(UInt16(bytes[start + 2 * position]) << 8 | UInt16(bytes[start + 2 * position + 1]))
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            try check(offset + 1, size)
            return .uid(Self.bigEndian(bytes, offset + 1, size))
        case 0xA, 0xC:
            let (count, start) = try length(marker: marker, at: offset)
            try check(start, count * referenceSize)
            var items: [PropertyListValue] = []
            items.reserveCapacity(count)
            for position in 0..<count {
                items.append(try object(Self.bigEndian(bytes, start + position * referenceSize, referenceSize)))
            }
            return .array(items)
        case 0xD:
            let (count, start) = try length(marker: marker, at: offset)
            try check(start, 2 * count * referenceSize)
            var values: [String: PropertyListValue] = [:]
            for position in 0..<count {
                let key = try object(Self.bigEndian(bytes, start + position * referenceSize, referenceSize))
                let value = try object(
                    Self.bigEndian(bytes, start + (count + position) * referenceSize, referenceSize))
                guard let name = key.string else { throw FormatError(description: "a dictionary key is no string") }
                values[name] = value
            }
            return .dictionary(values)
        default:
            throw FormatError(description: "unknown object marker 0x\(String(marker, radix: 16))")
        }
    }
}
