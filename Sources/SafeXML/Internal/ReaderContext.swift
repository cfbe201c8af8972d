@preconcurrency import CLibXML2

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state one parse shares with libxml2's C callbacks: where the bytes come from and the errors reported.
///
/// Owned by the parse's ``SAXEvents``, whose error callback records here. Used from one thread at a time, like the
/// parser that owns it.
final class ReaderContext {
    enum Input {
        case data(Data)
        case file(descriptor: Int32)
    }

    /// An error as libxml2 reported it.
    struct Reported {
        var domain: Int32
        var code: Int32
        var isFatal: Bool
        var message: String
        var line: Int
        var column: Int
    }

    private let input: Input
    private let maxBytes: Int
    private var offset = 0
    /// Whether reading stopped because the input passed `maxBytes`.
    private(set) var exceededMaxBytes = false
    /// The `errno` of a failed `read(2)`, or 0.
    private(set) var readErrno: Int32 = 0
    /// Whether the bytes read so far contain something that looks like a start tag (`<` then neither `?`, `!`
    /// nor `/`). Tells an empty document from a broken one, which libxml2's push parser reports alike.
    private(set) var hasSeenStartTag = false
    private var endsWithLessThan = false
    /// The first error (level error or fatal) that libxml2 reported.
    private(set) var firstError: Reported?
    /// The first fatal error that libxml2 reported.
    private(set) var firstFatalError: Reported?

    init(input: Input, maxBytes: Int) {
        self.input = input
        self.maxBytes = maxBytes
    }

    deinit {
        if case .file(let descriptor) = input {
            _ = close(descriptor)
        }
    }

    /// Fills `buffer` with up to `count` bytes; returns the number read, 0 at the end, -1 on failure.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int32 {
        let wanted = min(count, maxBytes + 1 - offset)
        guard wanted > 0 else {
            exceededMaxBytes = true
            return -1
        }
        var got = 0
        switch input {
        case .data(let data):
            got = min(wanted, data.count - offset)
            if got > 0 {
                let start = data.startIndex + offset
                data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), from: start..<(start + got))
            }
        case .file(let descriptor):
            while true {
                let result = systemRead(descriptor, buffer, wanted)
                if result >= 0 {
                    got = result
                    break
                }
                if errno != EINTR {
                    readErrno = errno
                    return -1
                }
            }
        }
        offset += got
        if !hasSeenStartTag, got > 0 {
            scanForStartTag(UnsafeRawBufferPointer(start: buffer, count: got))
        }
        if offset > maxBytes {
            exceededMaxBytes = true
            return -1
        }
        return Int32(got)
    }

    private func scanForStartTag(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            if endsWithLessThan, byte != UInt8(ascii: "?"), byte != UInt8(ascii: "!"), byte != UInt8(ascii: "/") {
                hasSeenStartTag = true
                return
            }
            endsWithLessThan = byte == UInt8(ascii: "<")
        }
    }

    func record(_ error: UnsafePointer<xmlError>) {
        let level = error.pointee.level
        guard level == XML_ERR_ERROR || level == XML_ERR_FATAL else { return }  // warnings are not failures
        // The first line only: libxml2 appends the offending bytes on a second line, and content stays out of
        // error messages.
        let fullMessage = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let message = String(fullMessage.prefix { $0 != "\n" })
        let reported = Reported(
            domain: error.pointee.domain,
            code: error.pointee.code,
            isFatal: level == XML_ERR_FATAL,
            message: message,
            line: Int(error.pointee.line),
            column: Int(error.pointee.int2)
        )
        if firstError == nil { firstError = reported }
        if reported.isFatal, firstFatalError == nil { firstFatalError = reported }
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
