/// Writes deterministic, indented XML into a byte buffer, without libxml2.
///
/// ```swift
/// var writer = XMLWriter()
/// writer.writeDeclaration(standalone: true)
/// try writer.startElement("database")
/// try writer.writeElement("attribute", attributes: [("name", "title"), ("type", "string")], text: "A & B")
/// try writer.endElement()
/// let bytes = try writer.finish()
/// ```
///
/// Output rules, so that the same calls always give the same bytes:
/// - UTF-8, `\n` line ends, a child element on its own line indented by ``Configuration/indentation`` per level;
///   text is written inline (`<a>text</a>`) and an element without content as `<a/>`.
/// - Once an element has text, its later children are written inline, so indentation never adds whitespace to
///   text that was written. (Whitespace already added before earlier children of that element stays: for mixed
///   content where that matters, set ``Configuration/indentation`` to `nil`.)
/// - Text escapes `&`, `<`, `>` and carriage return (`&#13;`); attribute values additionally escape `"`, tab,
///   newline and carriage return as character references, so every string reads back unchanged.
/// - Characters XML 1.0 cannot represent at all (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+FFFE, U+FFFF;
///   not even as `&#1;`) follow ``Configuration/invalidCharacters``: throw ``XMLError/Code/invalidCharacter``
///   (the default) or replace them with U+FFFD.
public struct XMLWriter: Sendable {
    /// How a writer lays out and checks its output.
    public struct Configuration: Sendable, Hashable {
        /// The text repeated once per nesting level, or `nil` to write everything on one line. Default four spaces.
        public var indentation: String?
        /// What to do with characters XML 1.0 cannot represent. Default ``InvalidCharacterPolicy/reject``.
        public var invalidCharacters: InvalidCharacterPolicy

        /// Creates a configuration; omitted values take their defaults.
        public init(indentation: String? = "    ", invalidCharacters: InvalidCharacterPolicy = .reject) {
            self.indentation = indentation
            self.invalidCharacters = invalidCharacters
        }
    }

    /// What to do with a character XML 1.0 cannot represent.
    public enum InvalidCharacterPolicy: Sendable, Hashable {
        /// Throw ``XMLError/Code/invalidCharacter``.
        case reject
        /// Write U+FFFD REPLACEMENT CHARACTER instead.
        case replace
    }

    private struct OpenElement: Sendable {
        var name: String
        var hasChildElements = false
        var hasText = false
    }

    private let configuration: Configuration
    private let indentation: [UInt8]
    private var buffer: [UInt8] = []
    private var openElements: [OpenElement] = []
    private var isStartTagOpen = false
    private var hasWrittenRoot = false

    /// Creates an empty writer.
    /// - Parameter configuration: Layout and character policy.
    /// - Parameter capacity: Bytes to reserve up front, when the output size is roughly known.
    public init(configuration: Configuration = Configuration(), capacity: Int = 4096) {
        self.configuration = configuration
        self.indentation = Array((configuration.indentation ?? "").utf8)
        buffer.reserveCapacity(capacity)
    }

    /// Writes `<?xml version="1.0" encoding="UTF-8"?>`, with `standalone="yes"`/`"no"` when given.
    /// Call it first.
    public mutating func writeDeclaration(standalone: Bool? = nil) {
        append(#"<?xml version="1.0" encoding="UTF-8""#)
        if let standalone {
            append(standalone ? #" standalone="yes""# : #" standalone="no""#)
        }
        append("?>")
    }

    /// Writes `<!DOCTYPE name SYSTEM "systemID">` (no internal subset), e.g. Core Data's
    /// `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`. Call it before the root element.
    /// - Throws: ``XMLError/Code/invalidName`` for a bad name, ``XMLError/Code/invalidCharacter`` if `systemID`
    ///   contains `"` or a character XML cannot represent.
    public mutating func writeDocumentType(name: String, systemID: String) throws(XMLError) {
        try Self.validate(name: name)
        guard !systemID.utf8.contains(UInt8(ascii: "\"")) else {
            throw XMLError(code: .invalidCharacter, message: "A DOCTYPE system identifier cannot contain '\"'.")
        }
        newLineIfNeeded(level: 0)
        append("<!DOCTYPE ")
        append(name)
        append(#" SYSTEM ""#)
        try appendEscaped(systemID, inAttribute: false)
        append("\">")
    }

    /// Opens an element: writes its start tag with the attributes in the order given.
    /// - Throws: ``XMLError/Code/invalidName`` for a bad element or attribute name,
    ///   ``XMLError/Code/invalidCharacter`` per ``Configuration/invalidCharacters``,
    ///   ``XMLError/Code/unbalancedWriter`` after the root element was closed.
    public mutating func startElement(
        _ name: String,
        attributes: [(name: String, value: String)] = []
    ) throws(XMLError) {
        try Self.validate(name: name)
        closeStartTag()
        if openElements.isEmpty, hasWrittenRoot {
            throw XMLError(code: .unbalancedWriter, message: "A document has one root element; it is already closed.")
        }
        let parentHasText = openElements.last?.hasText ?? false
        if !openElements.isEmpty {
            openElements[openElements.count - 1].hasChildElements = true
        }
        if !parentHasText {
            newLineIfNeeded(level: openElements.count)
        }
        buffer.append(UInt8(ascii: "<"))
        append(name)
        for attribute in attributes {
            try Self.validate(name: attribute.name)
            buffer.append(UInt8(ascii: " "))
            append(attribute.name)
            append("=\"")
            try appendEscaped(attribute.value, inAttribute: true)
            buffer.append(UInt8(ascii: "\""))
        }
        openElements.append(OpenElement(name: name))
        isStartTagOpen = true
        hasWrittenRoot = true
    }

    /// Writes text inside the current element, escaped.
    /// - Throws: ``XMLError/Code/invalidCharacter`` per ``Configuration/invalidCharacters``,
    ///   ``XMLError/Code/unbalancedWriter`` outside any element.
    public mutating func writeText(_ text: String) throws(XMLError) {
        guard !openElements.isEmpty else {
            throw XMLError(code: .unbalancedWriter, message: "Text must be written inside an element.")
        }
        closeStartTag()
        try appendEscaped(text, inAttribute: false)
        openElements[openElements.count - 1].hasText = true
    }

    /// Closes the innermost open element.
    /// - Throws: ``XMLError/Code/unbalancedWriter`` if no element is open.
    public mutating func endElement() throws(XMLError) {
        guard let element = openElements.popLast() else {
            throw XMLError(code: .unbalancedWriter, message: "endElement() was called with no element open.")
        }
        if isStartTagOpen {
            append("/>")
            isStartTagOpen = false
            return
        }
        if element.hasChildElements, !element.hasText {
            newLineIfNeeded(level: openElements.count)
        }
        append("</")
        append(element.name)
        buffer.append(UInt8(ascii: ">"))
    }

    /// Writes a whole element: start tag, optional text, end tag (`<a/>` when `text` is `nil` or empty).
    /// - Throws: the errors of ``startElement(_:attributes:)`` and ``writeText(_:)``.
    public mutating func writeElement(
        _ name: String,
        attributes: [(name: String, value: String)] = [],
        text: String? = nil
    ) throws(XMLError) {
        try startElement(name, attributes: attributes)
        if let text, !text.isEmpty {
            try writeText(text)
        }
        try endElement()
    }

    /// Returns the document, ending in a newline.
    /// - Throws: ``XMLError/Code/unbalancedWriter`` if elements are still open.
    public mutating func finish() throws(XMLError) -> [UInt8] {
        guard openElements.isEmpty else {
            throw XMLError(
                code: .unbalancedWriter,
                message: "finish() was called with \(openElements.count) element(s) still open; call endElement()."
            )
        }
        if buffer.last != UInt8(ascii: "\n") {
            buffer.append(UInt8(ascii: "\n"))
        }
        return buffer
    }

    // MARK: - Output helpers

    private mutating func closeStartTag() {
        if isStartTagOpen {
            buffer.append(UInt8(ascii: ">"))
            isStartTagOpen = false
        }
    }

    private mutating func newLineIfNeeded(level: Int) {
        guard configuration.indentation != nil, !buffer.isEmpty else { return }
        buffer.append(UInt8(ascii: "\n"))
        for _ in 0..<level {
            buffer.append(contentsOf: indentation)
        }
    }

    var configurationInvalidCharacters: InvalidCharacterPolicy {
        configuration.invalidCharacters
    }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        if start < end {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    mutating func appendStatic(_ string: StaticString) {
        string.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    private mutating func append(_ string: String) {
        buffer.append(contentsOf: string.utf8)
    }
}
