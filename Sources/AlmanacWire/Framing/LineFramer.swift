/// Splits a byte stream into lines: a value-type state machine with no I/O.
///
/// Feed it chunks as they arrive with ``append(_:)`` and the end of the stream with ``finish()``; each returns the
/// actions to take, in order. Lines end with LF; a CR before the LF is removed. Lines that are empty or hold only
/// spaces and tabs are skipped. A line longer than ``maxLineLength`` bytes (line end excluded) yields one
/// ``Action/tooLarge`` as soon as the limit is passed; the framer then drops bytes up to the next LF, so the stream
/// stays usable and memory stays bounded by the limit.
public struct LineFramer: Sendable {
    /// What the caller should do.
    public enum Action: Sendable, Hashable {
        /// A complete line, without its line end.
        case line([UInt8])
        /// A line passed the limit; its bytes are discarded up to the next LF.
        case tooLarge
    }

    /// The longest line accepted, in bytes, without the line end.
    public let maxLineLength: Int
    private var buffer: [UInt8] = []
    private var isDiscarding = false

    /// A framer accepting lines of at most `maxLineLength` bytes (1 MiB by default).
    public init(maxLineLength: Int = WireProtocol.defaultMaxLineLength) {
        precondition(maxLineLength > 0, "maxLineLength must be positive")
        self.maxLineLength = maxLineLength
    }

    /// Whether bytes of an unfinished line are buffered.
    public var hasPartialLine: Bool { !buffer.isEmpty }

    /// Whether the stream is inside a line: bytes of an unfinished line are buffered, or the bytes of an over-long
    /// line are being dropped up to its LF.
    public var isInsideLine: Bool { !buffer.isEmpty || isDiscarding }

    /// Takes the next chunk of the stream.
    ///
    /// - Complexity: O(n) in the chunk's size.
    public mutating func append(_ chunk: some Collection<UInt8>) -> [Action] {
        var actions: [Action] = []
        if let handled = chunk.withContiguousStorageIfAvailable({ bytes in
            append(bytes, into: &actions)
        }) {
            _ = handled
        } else {
            Array(chunk).withUnsafeBufferPointer { append($0, into: &actions) }
        }
        return actions
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, into actions: inout [Action]) {
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline ?? bytes.count
            if !isDiscarding {
                // Allow one extra byte for a CR that will be stripped.
                let room = maxLineLength + 1 - buffer.count
                if end - start > room {
                    buffer.removeAll(keepingCapacity: false)
                    isDiscarding = true
                    actions.append(.tooLarge)
                } else {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                }
            }
            guard let newline else { break }
            completeLine(into: &actions)
            start = newline + 1
        }
        // A buffered line that already holds limit + 1 bytes can only be valid if the next byte is its LF after a CR.
        if !isDiscarding, buffer.count == maxLineLength + 1, buffer.last != 0x0D {
            buffer.removeAll(keepingCapacity: false)
            isDiscarding = true
            actions.append(.tooLarge)
        }
    }

    private mutating func completeLine(into actions: inout [Action]) {
        if isDiscarding {
            isDiscarding = false
            return
        }
        if buffer.last == 0x0D { buffer.removeLast() }
        if buffer.count > maxLineLength {
            actions.append(.tooLarge)
        } else if buffer.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
            actions.append(.line(buffer))
        }
        buffer.removeAll(keepingCapacity: buffer.count <= 4096)
    }

    /// Ends the stream: a final line without LF is returned (it is still subject to the limit).
    public mutating func finish() -> [Action] {
        var actions: [Action] = []
        if !isDiscarding, !buffer.isEmpty {
            completeLine(into: &actions)
        }
        isDiscarding = false
        buffer.removeAll()
        return actions
    }
}
