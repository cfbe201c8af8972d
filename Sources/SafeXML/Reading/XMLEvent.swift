/// One step of a streaming read: an element starts, an element ends, or text.
///
/// Comments, processing instructions and the document type declaration are skipped. Adjacent text and CDATA
/// sections (also across skipped comments) are coalesced into one ``text(_:)`` event. An empty element `<a/>`
/// produces ``startElement(_:)`` (with ``XMLElementStart/isEmpty`` set) followed by ``endElement(name:)``.
public enum XMLEvent: Sendable, Equatable {
    /// A start tag, with its attributes.
    case startElement(XMLElementStart)
    /// An end tag (also synthesized for empty elements).
    case endElement(name: String)
    /// Character data: text and CDATA, entity and character references resolved, coalesced.
    case text(String)
}

/// A start tag: its qualified name, its attributes in document order, and where it is.
public struct XMLElementStart: Sendable, Equatable {
    /// The qualified name as written, e.g. `object` or `xs:element`.
    public var name: String
    /// Attributes in document order, namespace declarations included.
    public var attributes: [XMLAttribute]
    /// The 1-based line where the start tag ends (its `>`), at any line count.
    public var line: Int
    /// Whether the element was written as `<a/>` (an ``XMLEvent/endElement(name:)`` follows immediately).
    public var isEmpty: Bool

    /// Creates a start tag.
    public init(name: String, attributes: [XMLAttribute] = [], line: Int = 0, isEmpty: Bool = false) {
        self.name = name
        self.attributes = attributes
        self.line = line
        self.isEmpty = isEmpty
    }

    /// The value of the first attribute with this qualified name, or `nil`. Complexity: O(number of attributes).
    public subscript(attribute name: String) -> String? {
        for attribute in attributes where attribute.name == name {
            return attribute.value
        }
        return nil
    }
}

/// One attribute of a start tag.
public struct XMLAttribute: Sendable, Hashable {
    /// The qualified name as written.
    public var name: String
    /// The value, references resolved and normalized as XML 1.0 requires.
    public var value: String

    /// Creates an attribute.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
