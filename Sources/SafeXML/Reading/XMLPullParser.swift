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

/// A streaming, pull-style XML reader on libxml2's `xmlTextReader`: memory stays bounded by the deepest path,
/// not the document.
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
/// A parser is used from one task at a time (it is not `Sendable`); parsers are independent of each other.
public struct XMLPullParser: ~Copyable {
    let reader: xmlTextReaderPtr
    let context: ReaderContext
    let limits: XMLLimits
    let fileName: String?
    private var names: [UnsafePointer<xmlChar>: String] = [:]
    private static let recentNameSlots = 64
    private var recentNames = [(pointer: UnsafePointer<xmlChar>?, name: String)](
        repeating: (nil, ""), count: recentNameSlots)
    private var text: [UInt8] = []
    private var hasText = false
    private var pending = PendingEvents()
    private var isAtEnd = false
    private var failure: XMLError?

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
        try self.init(context: ReaderContext(input: .data(data), maxBytes: limits.maxBytes), name: name, limits: limits)
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
        try self.init(context: context, name: path, limits: limits)
    }

    private init(context: ReaderContext, name: String?, limits: XMLLimits) throws(XMLError) {
        LibXML2.initializeOnce()
        let opaqueContext = Unmanaged.passUnretained(context).toOpaque()
        guard
            let reader = xmlReaderForIO(
                readerContextRead,
                nil,
                opaqueContext,
                name,
                nil,
                LibXML2.options(for: limits)
            )
        else {
            throw XMLError(
                code: .io,
                message: "libxml2 could not create a reader (out of memory?).",
                fileName: name
            )
        }
        xmlTextReaderSetStructuredErrorHandler(reader, readerContextError, opaqueContext)
        self.reader = reader
        self.context = context
        self.limits = limits
        self.fileName = name
    }

    deinit {
        xmlFreeTextReader(reader)
    }

    /// Reads the next event, or returns `nil` once the root element has ended.
    ///
    /// After an error, every later call throws the same error.
    /// - Throws: ``XMLError`` with the line and column: ``XMLError/Code/notWellFormed``,
    ///   ``XMLError/Code/entityDeclarationForbidden``, ``XMLError/Code/externalEntity``,
    ///   ``XMLError/Code/tooDeep``, ``XMLError/Code/tooLarge``, ``XMLError/Code/textTooLong``,
    ///   ``XMLError/Code/invalidEncoding``, ``XMLError/Code/emptyDocument`` or ``XMLError/Code/io``.
    public mutating func next() throws(XMLError) -> XMLEvent? {
        if let event = pending.popFirst() {
            return event
        }
        if let failure {
            throw failure
        }
        if isAtEnd {
            return nil
        }
        do {
            return try readEvent()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func readEvent() throws(XMLError) -> XMLEvent? {
        while try advance() {
            if let event = try eventForCurrentNode() {
                return event
            }
        }
        return hasText ? .text(takeText()) : nil
    }

    /// Moves the reader to the next node: true when there is one, false at the end of the document (``isAtEnd``
    /// is set then); throws what libxml2 reported.
    private mutating func advance() throws(XMLError) -> Bool {
        let status = xmlTextReaderRead(reader)
        guard status == 1 else {
            if status == 0, context.firstFatalError == nil, !context.exceededMaxBytes {
                isAtEnd = true
                return false
            }
            throw makeError()
        }
        return true
    }

    private var nodeType: UInt32 { UInt32(bitPattern: xmlTextReaderNodeType(reader)) }

    private static func isText(_ type: UInt32) -> Bool {
        type == XML_READER_TYPE_TEXT.rawValue || type == XML_READER_TYPE_CDATA.rawValue
            || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue || type == XML_READER_TYPE_WHITESPACE.rawValue
    }

    /// The event the reader's current node makes, with any it makes after it queued; nil for a node that makes
    /// none yet (text, which is coalesced with what follows, comments, processing instructions).
    private mutating func eventForCurrentNode() throws(XMLError) -> XMLEvent? {
        let type = nodeType
        switch type {
        case XML_READER_TYPE_ELEMENT.rawValue:
            let start = try makeElementStart()
            if start.isEmpty {
                return emit(.startElement(start), then: .endElement(name: start.name))
            }
            return emit(.startElement(start))
        case XML_READER_TYPE_END_ELEMENT.rawValue:
            return emit(.endElement(name: internedName()))
        case _ where Self.isText(type):
            try appendText()
        case XML_READER_TYPE_ENTITY_REFERENCE.rawValue:
            throw error(.entityDeclarationForbidden, entityMessage)
        case XML_READER_TYPE_DOCUMENT_TYPE.rawValue:
            try checkDocumentType()
        default:
            break  // comments, processing instructions
        }
        return nil
    }

    /// ``readText()`` of an element that holds one text node or none (`<title>Opening</title>`, `<a></a>`), the
    /// usual case, read straight from the reader without making events. Returns nil when the element holds
    /// anything else: what was read is then queued as the events ``next()`` would have returned, and the caller
    /// goes on event by event.
    mutating func readSingleText() throws(XMLError) -> String? {
        guard pending.isEmpty, failure == nil, !isAtEnd, !hasText else { return nil }
        do {
            guard try advance() else { return nil }
            var type = nodeType
            if type == XML_READER_TYPE_END_ELEMENT.rawValue { return "" }
            if Self.isText(type) {
                // Decoded at once: the node is freed when the reader moves on, and most elements end here.
                let single = try currentText()
                guard try advance() else {
                    pending.append(.text(single))
                    return nil
                }
                type = nodeType
                if type == XML_READER_TYPE_END_ELEMENT.rawValue { return single }
                text.append(contentsOf: single.utf8)
                hasText = true
            }
            if let event = try eventForCurrentNode() { pending.prepend(event) }
            return nil
        } catch {
            failure = error
            throw error
        }
    }

    /// The current text node's value, checked against the text limit.
    private func currentText() throws(XMLError) -> String {
        guard let value = xmlTextReaderConstValue(reader) else { return "" }
        let count = strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
        guard count <= limits.maxTextLength else { throw textTooLong() }
        return String(decoding: UnsafeBufferPointer(start: value, count: count), as: UTF8.self)
    }

    private func textTooLong() -> XMLError {
        error(
            .textTooLong,
            "A text node is longer than the limit of \(limits.maxTextLength) bytes. "
                + "Raise XMLLimits.maxTextLength if the document is trusted."
        )
    }

    /// Returns `event`, or the pending text first with `event` queued after it.
    private mutating func emit(_ event: XMLEvent, then following: XMLEvent? = nil) -> XMLEvent {
        guard hasText else {
            if let following { pending.append(following) }
            return event
        }
        pending.append(event)
        if let following { pending.append(following) }
        return .text(takeText())
    }

    private mutating func takeText() -> String {
        let string = String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        hasText = false
        return string
    }

    private mutating func appendText() throws(XMLError) {
        guard let value = xmlTextReaderConstValue(reader) else { return }
        let count = strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
        guard text.count + count <= limits.maxTextLength else { throw textTooLong() }
        text.append(contentsOf: UnsafeBufferPointer(start: value, count: count))
        hasText = true
    }

    private mutating func makeElementStart() throws(XMLError) -> XMLElementStart {
        let depth = Int(xmlTextReaderDepth(reader)) + 1
        guard depth <= limits.maxDepth else {
            throw tooDeep()
        }
        let name = internedName()
        let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
        let line = currentLine()
        var attributes: [XMLAttribute] = []
        if xmlTextReaderHasAttributes(reader) == 1 {
            attributes.reserveCapacity(Int(xmlTextReaderAttributeCount(reader)))
            var status = xmlTextReaderMoveToFirstAttribute(reader)
            while status == 1 {
                let attributeName = internedName()
                let value = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                attributes.append(XMLAttribute(name: attributeName, value: value))
                status = xmlTextReaderMoveToNextAttribute(reader)
            }
            _ = xmlTextReaderMoveToElement(reader)
        }
        return XMLElementStart(name: name, attributes: attributes, line: line, isEmpty: isEmpty)
    }

    /// The current node's qualified name. libxml2 interns names in the reader's dictionary (owned by the reader,
    /// never freed by us), so equal names share a pointer and each is decoded into a `String` only once.
    ///
    /// The names seen last sit in a small table indexed by their address, checked before the dictionary: a file's
    /// few distinct names come back for every element, and the table's test costs less than hashing the address.
    private mutating func internedName() -> String {
        guard let pointer = xmlTextReaderConstName(reader) else { return "" }
        // Fibonacci hashing of the address: its top six bits pick one of the 64 slots (libxml2's names sit close
        // together, so low bits collide).
        let slot = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: pointer)) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        if recentNames[slot].pointer == pointer {
            return recentNames[slot].name
        }
        let name: String
        if let known = names[pointer] {
            name = known
        } else {
            name = String(cString: pointer)
            names[pointer] = name
        }
        recentNames[slot] = (pointer, name)
        return name
    }

    /// The start tag's line. libxml2 keeps element lines in 16 bits; past 65,534 the line is recovered from the
    /// first child when it is text (libxml2 stores its line, as of the text's end, in `psvi` with
    /// `XML_PARSE_BIG_LINES`), else the parser's current line is the best estimate.
    private func currentLine() -> Int {
        guard let node = xmlTextReaderCurrentNode(reader) else { return 0 }
        let line = Int(node.pointee.line)
        if line < 65535 {
            return line
        }
        if let child = node.pointee.children, child.pointee.type == XML_TEXT_NODE,
            let endLine = child.pointee.psvi.map({ Int(bitPattern: $0) }), endLine >= 65535
        {
            var newlines = 0
            if let content = child.pointee.content {
                var cursor = content
                while cursor.pointee != 0 {
                    if cursor.pointee == UInt8(ascii: "\n") { newlines += 1 }
                    cursor += 1
                }
            }
            return endLine - newlines
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }

    /// Refuses a DOCTYPE that declares entities: declarations are the only way to build an entity bomb or reach
    /// an external resource, and Core Data, Xcode and frab documents never need them.
    private func checkDocumentType() throws(XMLError) {
        guard let node = xmlTextReaderCurrentNode(reader) else { return }
        let dtd = UnsafeMutableRawPointer(node).assumingMemoryBound(to: xmlDtd.self)
        if dtd.pointee.entities != nil || dtd.pointee.pentities != nil {
            throw error(.entityDeclarationForbidden, entityMessage)
        }
    }

    var entityMessage: String {
        "The document declares or references an entity. Entities are refused to prevent entity-expansion "
            + "(\"billion laughs\") and external-entity attacks; replace them with their text or with character "
            + "references such as &#x41;."
    }
}

@available(*, unavailable)
extension XMLPullParser: Sendable {}
