import Foundation

/// Appends the binary store format's primitives to a byte buffer (little-endian).
struct BinaryWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    mutating func f64(_ value: Double) { u64(value.bitPattern) }

    /// An unsigned LEB128 number.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed number, zigzag-encoded then LEB128.
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func raw(_ data: some Collection<UInt8>) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func string(_ value: String) {
        var copy = value
        copy.withUTF8 { raw($0) }
    }
}
