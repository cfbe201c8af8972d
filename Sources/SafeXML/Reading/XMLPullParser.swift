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

/// A streaming, pull-style XML reader on libxml2's SAX2 push parser: memory stays bounded by the deepest path and
/// one chunk of input, not the document.
///
/// ```swift
/// var parser = try XMLPullParser(data: data, name: "store.xml")
/// while let event = try parser.next() {
///     if case .startElement(let start) = event, start.name == "attribute" {
///         let value = try parser.readText()
///     }
/// }
/// ```
///
/// Safety: the network is never used, no DTD or external entity is ever loaded, and documents that declare
/// entities are refused (``XMLError/Code/entityDeclarationForbidden``), which rules out "billion laughs".
/// A `<!DOCTYPE … SYSTEM "…">` without an internal subset is accepted and ignored. Nothing is printed: every
/// libxml2 error becomes an ``XMLError`` with its line and column. ``XMLLimits`` bounds size, depth and text.
///
/// The input is parsed a chunk at a time as the caller asks for events: libxml2 calls back for each tag and run
/// of text in the chunk, and the events wait in a queue (see `SAXEvents`). An error is thrown once the events
/// before it have been handed out.
///
/// A parser is used from one task at a time (it is not `Sendable`); parsers are independent of each other.
public struct XMLPullParser: ~Copyable {
    /// libxml2's push parser, made when the first bytes are read (it detects the encoding from them).
    private var parser: xmlParserCtxtPtr?
    let events: SAXEvents
    var context: ReaderContext { events.context }
    let limits: XMLLimits
    let fileName: String?
    /// Where each chunk of input is read before libxml2 parses it.
    private let chunk: UnsafeMutableRawBufferPointer
    private var isAtEnd = false
    private var failure: XMLError?

    /// Bytes parsed per step: small enough that a chunk's events stay in the cache until they are handed out.
    private static let chunkSize = 32 * 1024

    /// Prepares to read a document held in memory.
    ///
    /// - Parameters:
    ///   - data: The document's bytes; the encoding is detected from a byte-order mark or the XML declaration
    ///     and defaults to UTF-8.
    ///   - name: A file name or URL used in error messages; never opened.
    ///   - limits: Bounds on size, depth and text length.
    /// - Throws: ``XMLError/Code/tooLarge`` if `data` is larger than `limits.maxBytes`.
    public init(data: Data, name: String? = nil, limits: XMLLimits = .default) throws(XMLError) {
        guard data.count <= limits.maxBytes else {
            throw Self.tooLarge(size: data.count, limits: limits, fileName: name)
        }
        self.init(context: ReaderContext(input: .data(data), maxBytes: limits.maxBytes), name: name, limits: limits)
    }

    /// Prepares to read a document from a file, streaming it from disk in small chunks.
    ///
    /// Compressed files are not decompressed (that would open the door to decompression bombs).
    /// - Throws: ``XMLError/Code/io`` if the file cannot be opened, ``XMLError/Code/tooLarge`` if it is larger
    ///   than `limits.maxBytes`.
    public init(contentsOfFile path: String, limits: XMLLimits = .default) throws(XMLError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw XMLError(
                code: .io,
                message: "Cannot open the file (\(reason)). Check that it exists and is readable.",
                fileName: path
            )
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, Int(status.st_size) > limits.maxBytes {
            _ = close(descriptor)
            throw Self.tooLarge(size: Int(status.st_size), limits: limits, fileName: path)
        }
        let context = ReaderContext(input: .file(descriptor: descriptor), maxBytes: limits.maxBytes)
        self.init(context: context, name: path, limits: limits)
    }

    private init(context: ReaderContext, name: String?, limits: XMLLimits) {
        LibXML2.initializeOnce()
        self.events = SAXEvents(context: context, limits: limits, fileName: name)
        self.limits = limits
        self.fileName = name
        self.chunk = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        if let parser {
            if let document = parser.pointee.myDoc { xmlFreeDoc(document) }
            xmlFreeParserCtxt(parser)
        }
        chunk.deallocate()
    }

    /// Reads the next event, or returns `nil` at the end of the document (after the root element has ended).
    ///
    /// After an error, every later call throws the same error.
    /// - Throws: ``XMLError`` with the line and column: ``XMLError/Code/notWellFormed``,
    ///   ``XMLError/Code/entityDeclarationForbidden``, ``XMLError/Code/externalEntity``,
    ///   ``XMLError/Code/tooDeep``, ``XMLError/Code/tooLarge``, ``XMLError/Code/textTooLong``,
    ///   ``XMLError/Code/invalidEncoding``, ``XMLError/Code/emptyDocument`` or ``XMLError/Code/io``.
    public mutating func next() throws(XMLError) -> XMLEvent? {
        while true {
            if let event = events.popFirst() {
                return event
            }
            if let failure {
                throw failure
            }
            if isAtEnd {
                return nil
            }
            parseChunk()
        }
    }

    /// Reads the next chunk of input and parses it, queueing its events; at the end of the input, tells libxml2
    /// the document is complete. A failure is kept in ``failure`` (thrown once the queued events are out).
    private mutating func parseChunk() {
        let count = Int(context.read(into: chunk.baseAddress!, count: Self.chunkSize))
        guard count >= 0 else {
            failure = makeError()
            return
        }
        let bytes = chunk.baseAddress!.assumingMemoryBound(to: CChar.self)
        let isLast = count == 0
        let status: Int32
        if let parser {
            status = xmlParseChunk(parser, bytes, Int32(count), isLast ? 1 : 0)
        } else {
            // The first bytes go to the parser's creation, which detects the encoding from them (byte-order mark
            // or declaration), as xmlTextReader does.
            let head = min(count, 4)
            let user = Unmanaged.passUnretained(events).toOpaque()
            var handler = SAXEvents.handler()
            guard let made = xmlCreatePushParserCtxt(&handler, user, bytes, Int32(head), fileName) else {
                failure = XMLError(
                    code: .io, message: "libxml2 could not create a parser (out of memory?).", fileName: fileName)
                return
            }
            _ = xmlCtxtUseOptions(made, LibXML2.options(for: limits))
            parser = made
            events.parser = made
            status = xmlParseChunk(made, bytes + head, Int32(count - head), isLast ? 1 : 0)
        }
        if let failed = events.failure {
            failure = failed
        } else if status != 0 || parser?.pointee.wellFormed == 0 || context.firstFatalError != nil {
            failure = makeError()
        } else if isLast {
            events.flushText()
            isAtEnd = true
        }
    }

    /// The parser's current line and column.
    var position: (line: Int, column: Int) { (events.line, events.column) }

    static func tooDeepMessage(_ limits: XMLLimits) -> String {
        "Elements are nested deeper than the limit of \(limits.maxDepth). "
            + "Raise XMLLimits.maxDepth if the document is trusted."
    }

    static func textTooLongMessage(_ limits: XMLLimits) -> String {
        "A text node is longer than the limit of \(limits.maxTextLength) bytes. "
            + "Raise XMLLimits.maxTextLength if the document is trusted."
    }

    static var entityMessage: String {
        "The document declares or references an entity. Entities are refused to prevent entity-expansion "
            + "(\"billion laughs\") and external-entity attacks; replace them with their text or with character "
            + "references such as &#x41;."
    }
}

@available(*, unavailable)
extension XMLPullParser: Sendable {}
