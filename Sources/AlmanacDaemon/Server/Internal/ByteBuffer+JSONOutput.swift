import AlmanacWire
import NIOCore

/// Replies are encoded straight into the buffer handed to the socket.
extension ByteBuffer: JSONOutput {
    @inlinable
    public mutating func writeJSONByte(_ byte: UInt8) {
        writeInteger(byte)
    }

    @inlinable
    public mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }
}
