@preconcurrency import CLibXML2

/// What libxml2's SAX2 callbacks collect for ``XMLPullParser``: the events of the bytes parsed so far, in order,
/// and the first limit or rule a callback found broken.
///
/// libxml2 parses a chunk and calls back for every start tag, end tag and run of text in it; the callbacks turn
/// each into an ``XMLEvent`` at once (names decoded once per distinct name, text coalesced until the next tag) and
/// queue it. The pull parser hands the queue out and parses the next chunk when it is empty. No tree is built:
/// `xmlTextReader` built a node for every element and text and freed it again, half of its cost.
///
/// Passed to libxml2 as an unretained pointer; the owning parser keeps it alive longer than libxml2's context.
/// Used from one thread at a time, like that parser.
final class SAXEvents {
    /// Where errors are recorded and the bytes come from.
    let context: ReaderContext
    let limits: XMLLimits
    let fileName: String?
    // The state below is read and written several times per tag, and the runtime's exclusivity checks on a
    // class's properties (a thread-local access set, per access) cost more than libxml2's parsing itself (perf:
    // a third of reading a 293 MB frab file). The object is private to one parse on one thread, and no access
    // calls out while it lasts (libxml2 calls back between accesses, never inside one), so none overlap: the
    // checks are turned off.

    /// libxml2's context, for positions and for stopping it; set once it is made.
    @exclusivity(unchecked)
    var parser: xmlParserCtxtPtr?
    /// The first failure a callback found (a limit, an entity declaration); libxml2 was stopped there.
    @exclusivity(unchecked)
    private(set) var failure: XMLError?

    @exclusivity(unchecked)
    private var events: [XMLEvent] = []
    @exclusivity(unchecked)
    private var head = 0
    @exclusivity(unchecked)
    private var text: [UInt8] = []
    @exclusivity(unchecked)
    private var depth = 0
    @exclusivity(unchecked)
    private var names: [NameKey: String] = [:]
    private static let recentNameSlots = 64
    @exclusivity(unchecked)
    private var recentNames = [RecentName](repeating: RecentName(), count: recentNameSlots)

    /// A name as libxml2 interns it: its local part and prefix, each a pointer into the parser's dictionary, so
    /// equal names are equal pointers.
    private struct NameKey: Hashable {
        var local: UnsafePointer<xmlChar>
        var prefix: UnsafePointer<xmlChar>?
    }

    private struct RecentName {
        var local: UnsafePointer<xmlChar>?
        var prefix: UnsafePointer<xmlChar>?
        var name = ""
    }

    init(context: ReaderContext, limits: XMLLimits, fileName: String?) {
        self.context = context
        self.limits = limits
        self.fileName = fileName
        events.reserveCapacity(256)
    }

    /// The next queued event, if any. Moved out, not copied: an empty text (which holds no storage) takes its
    /// place, so handing an event out neither retains its strings nor has the queue release them later.
    func popFirst() -> XMLEvent? {
        guard head < events.count else { return nil }
        var event = XMLEvent.text("")
        swap(&event, &events[head])
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }

    /// The text of an element whose start was just handed out, when the queue holds all of it as the usual
    /// shape, one text or none and the end (`<title>Opening</title>`, `<a></a>`): taken with the end; nil
    /// otherwise, leaving the queue as it was.
    func takeSingleText() -> String? {
        guard head < events.count else { return nil }
        if case .endElement = events[head] {
            _ = popFirst()
            return ""
        }
        guard head + 1 < events.count, case .endElement = events[head + 1], case .text = events[head],
            case .text(let text)? = popFirst()
        else { return nil }
        _ = popFirst()
        return text
    }

    /// Queues the text read since the last tag as one event (at the end of the document: text is only ever
    /// inside the root, so none is left there in a well-formed document).
    func flushText() {
        guard !text.isEmpty else { return }
        events.append(.text(String(decoding: text, as: UTF8.self)))
        text.removeAll(keepingCapacity: true)
    }

    // MARK: Callbacks

    func startElement(
        _ local: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?, namespaceCount: Int,
        _ namespaces: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, attributeCount: Int,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        guard depth <= limits.maxDepth else {
            fail(.tooDeep, XMLPullParser.tooDeepMessage(limits))
            return
        }
        flushText()
        let name = interned(local, prefix)
        var list: [XMLAttribute] = []
        if namespaceCount + attributeCount > 0 {
            list.reserveCapacity(namespaceCount + attributeCount)
        }
        // Namespace declarations first, as xmlTextReader listed them: pairs of prefix (nil: the default) and URI.
        if let namespaces {
            for index in 0..<namespaceCount {
                let declared = namespaces[2 * index].map { "xmlns:" + String(cString: $0) } ?? "xmlns"
                let uri = namespaces[2 * index + 1].map { String(cString: $0) } ?? ""
                list.append(XMLAttribute(name: declared, value: uri))
            }
        }
        // Five pointers per attribute: local name, prefix, URI, value start, value end.
        if let attributes {
            for index in 0..<attributeCount {
                let base = 5 * index
                guard let attributeLocal = attributes[base], let start = attributes[base + 3],
                    let end = attributes[base + 4]
                else { continue }
                let value = Self.attributeValue(UnsafeBufferPointer(start: start, count: end - start))
                list.append(XMLAttribute(name: interned(attributeLocal, attributes[base + 1]), value: value))
            }
        }
        events.append(.startElement(XMLElementStart(name: name, attributes: list, line: line, isEmpty: false)))
    }

    func endElement(_ local: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?) {
        depth -= 1
        if text.isEmpty, head < events.count, endsWithEmptyElementTag,
            case .startElement(var start) = events[events.count - 1]
        {
            start.isEmpty = true
            events[events.count - 1] = .startElement(start)
        } else {
            flushText()
        }
        events.append(.endElement(name: interned(local, prefix)))
    }

    func characters(_ bytes: UnsafePointer<xmlChar>, count: Int) {
        guard failure == nil else { return }
        guard text.count + count <= limits.maxTextLength else {
            fail(.textTooLong, XMLPullParser.textTooLongMessage(limits))
            return
        }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Any entity declaration, internal or external, general or parameter: refused, the parse stops.
    func entityDeclared() {
        fail(.entityDeclarationForbidden, XMLPullParser.entityMessage)
    }

    // MARK: Helpers

    /// The parser's current line (libxml2 counts lines in a full `int` here, past 65,535 too).
    var line: Int {
        guard let input = parser?.pointee.input else { return 0 }
        return Int(input.pointee.line)
    }

    var column: Int {
        guard let input = parser?.pointee.input else { return 0 }
        return Int(input.pointee.col)
    }

    /// Whether the tag just read ends in `/>`: libxml2 calls the end callback for `<a/>` right after the start
    /// callback, with its input just past the tag (an end tag `</a>` never ends so).
    private var endsWithEmptyElementTag: Bool {
        guard let input = parser?.pointee.input, let current = input.pointee.cur, let base = input.pointee.base,
            current - base >= 2
        else { return false }
        return current[-2] == UInt8(ascii: "/") && current[-1] == UInt8(ascii: ">")
    }

    /// Records a failure at the current position and stops libxml2 (no more callbacks).
    private func fail(_ code: XMLError.Code, _ message: String) {
        if failure == nil {
            failure = XMLError(code: code, message: message, fileName: fileName, line: line, column: column)
        }
        if let parser { xmlStopParser(parser) }
    }

    /// A qualified name, decoded once per distinct name: the names seen last sit in a small table indexed by the
    /// local part's address, checked before the dictionary (a file's few names come back for every element).
    private func interned(_ local: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?) -> String {
        // Fibonacci hashing of the address: its top six bits pick one of the 64 slots (libxml2's names sit close
        // together, so low bits collide).
        let slot = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: local)) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        if recentNames[slot].local == local, recentNames[slot].prefix == prefix {
            return recentNames[slot].name
        }
        let key = NameKey(local: local, prefix: prefix)
        let name: String
        if let known = names[key] {
            name = known
        } else {
            let localName = String(cString: local)
            name = prefix.map { String(cString: $0) + ":" + localName } ?? localName
            names[key] = name
        }
        recentNames[slot] = RecentName(local: local, prefix: prefix, name: name)
        return name
    }

    /// An attribute's value as libxml2 hands it to SAX2 callbacks: references resolved, except that without
    /// entity substitution (never turned on here) an `&` from `&amp;` or `&#38;` comes back as the text `&#38;`,
    /// for a tree builder to parse again. A literal `&` cannot occur in a value, so every `&#38;` is one `&`.
    private static func attributeValue(_ bytes: UnsafeBufferPointer<xmlChar>) -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        let escape = Array("&#38;".utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + escape.count <= bytes.count,
                bytes[index..<(index + escape.count)].elementsEqual(escape)
            {
                decoded.append(UInt8(ascii: "&"))
                index += escape.count
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The SAX2 handler whose callbacks fill a ``SAXEvents`` passed as the parser's user data. Everything not set
    /// is ignored: comments, processing instructions, the document type and its element and attribute
    /// declarations; no external subset or entity is ever loaded (no `externalSubset`, `resolveEntity` or
    /// `getEntity` callback).
    static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { user, local, prefix, _, namespaceCount, namespaces, attributeCount, _, attributes in
            guard let user, let local else { return }
            SAXEvents.with(user) {
                $0.startElement(
                    local, prefix, namespaceCount: Int(namespaceCount), namespaces,
                    attributeCount: Int(attributeCount), attributes)
            }
        }
        handler.endElementNs = { user, local, prefix, _ in
            guard let user, let local else { return }
            SAXEvents.with(user) { $0.endElement(local, prefix) }
        }
        handler.characters = { user, bytes, count in
            guard let user, let bytes, count > 0 else { return }
            SAXEvents.with(user) { $0.characters(bytes, count: Int(count)) }
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.entityDecl = { user, _, _, _, _, _ in
            guard let user else { return }
            SAXEvents.with(user) { $0.entityDeclared() }
        }
        handler.unparsedEntityDecl = { user, _, _, _, _ in
            guard let user else { return }
            SAXEvents.with(user) { $0.entityDeclared() }
        }
        handler.serror = { user, error in
            guard let user, let error else { return }
            SAXEvents.with(user) { $0.context.record(error) }
        }
        return handler
    }

    /// Calls `body` with the events a callback's user data points to, without retaining them: the parser that
    /// owns them outlives every callback (a retain and release per callback were a tenth of the parse).
    private static func with(_ pointer: UnsafeMutableRawPointer, _ body: (SAXEvents) -> Void) {
        Unmanaged<SAXEvents>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }
}
