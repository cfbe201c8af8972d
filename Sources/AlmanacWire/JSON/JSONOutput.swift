/// Where encoded JSON goes: a byte array here, the outgoing `ByteBuffer` in the daemon.
///
/// The encoder (``JSONValue/encode(into:sortingKeys:)``, ``WireResponse/encodeLine(id:body:into:)``) is generic over
/// its output and inlinable, so a server writes each reply straight into the buffer it hands to the socket, with no
/// byte array in between.
public protocol JSONOutput {
    /// Appends one byte.
    mutating func writeJSONByte(_ byte: UInt8)
    /// Appends bytes.
    mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer)
}

extension Array: JSONOutput where Element == UInt8 {
    @inlinable
    public mutating func writeJSONByte(_ byte: UInt8) { append(byte) }

    @inlinable
    public mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

extension JSONOutput {
    /// Appends the bytes of an array.
    @inlinable
    public mutating func writeJSONBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeJSONBytes($0) }
    }

    /// Appends literal text, such as `,"objects":`.
    @inlinable
    public mutating func writeJSONText(_ text: StaticString) {
        text.withUTF8Buffer { writeJSONBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends one member of an object after earlier ones: `,"key":value`.
    @inlinable
    public mutating func writeJSONMember(_ key: String, _ value: JSONValue) {
        writeJSONByte(UInt8(ascii: ","))
        JSONValue.encodeString(key, into: &self)
        writeJSONByte(UInt8(ascii: ":"))
        value.encode(into: &self)
    }
}
