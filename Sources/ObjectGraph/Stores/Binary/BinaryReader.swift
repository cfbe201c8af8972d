import Foundation

/// Reads the binary store format's primitives with bounds checks: every read either succeeds or throws
/// ``StoreError/Code/corruptFile`` naming the offset; nothing reads past the buffer.
struct BinaryReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    let url: URL?

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, url: URL?) {
        self.bytes = bytes
        self.offset = offset
        self.url = url
    }

    var remaining: Int { bytes.count - offset }

    func corrupt(_ what: String) -> StoreError {
        StoreError(code: .corruptFile,
                   message: "The binary store is damaged at byte \(offset): \(what). Restore it from a backup.",
                   context: ErrorContext(storeURL: url))
    }

    private mutating func take(_ count: Int) throws -> Int {
        guard count >= 0, count <= remaining else { throw corrupt("unexpected end of file") }
        let start = offset
        offset += count
        return start
    }

    mutating func u8() throws -> UInt8 { bytes[try take(1)] }

    /// The next byte, without moving past it.
    func peek() throws -> UInt8 {
        guard remaining > 0 else { throw corrupt("unexpected end of file") }
        return bytes[offset]
    }

    mutating func u16() throws -> UInt16 {
        let at = try take(2)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    mutating func u32() throws -> UInt32 {
        let at = try take(4)
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func u64() throws -> UInt64 {
        let at = try take(8)
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    mutating func i64() throws -> Int64 { Int64(bitPattern: try u64()) }

    mutating func f64() throws -> Double { Double(bitPattern: try u64()) }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 64 else { throw corrupt("a number is too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func zigzag() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// An index into a table of `count` entries; `what` names it for the error when it is out of range.
    mutating func index(below count: Int, _ what: String) throws -> Int {
        let value = try varint()
        guard value < UInt64(count) else { throw corrupt(what) }  // compared as read: it may exceed Int.max
        return Int(value)
    }

    /// A count that must fit in what is left of the file (each element takes at least `minimumSize` bytes).
    mutating func count(minimumSize: Int = 1) throws -> Int {
        let value = try varint()
        guard value <= UInt64(remaining / max(minimumSize, 1)) else { throw corrupt("a count is larger than the file") }
        return Int(value)
    }

    mutating func rawBytes() throws -> UnsafeRawBufferPointer {
        let count = try count()
        let at = try take(count)
        return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)])
    }

    mutating func data() throws -> Data { Data(try rawBytes()) }

    mutating func string() throws -> String {
        let raw = try rawBytes()
        guard let string = String(validating: raw.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw corrupt("a string is not valid UTF-8")
        }
        return string
    }
}

/// FNV-1a, 64 bits: the binary store's checksum (detects damage, not tampering).
enum FNV1a {
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
