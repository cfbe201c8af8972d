extension XMLPullParser {
    /// Reads the text content of the element whose ``XMLEvent/startElement(_:)`` was just returned, up to and
    /// including its end tag: the text of all descendants, concatenated in document order (like DOM's
    /// `textContent`). Returns `""` for an empty element.
    /// - Throws: the errors of ``next()``.
    public mutating func readText() throws(XMLError) -> String {
        if let text = events.takeSingleText() { return text }
        var result = ""
        var depth = 1
        while let event = try next() {
            switch event {
            case .startElement:
                depth += 1
            case .endElement:
                depth -= 1
                if depth == 0 { return result }
            case .text(let string):
                result += string
            }
        }
        return result
    }

    /// Skips the rest of the element whose ``XMLEvent/startElement(_:)`` was just returned, up to and including
    /// its end tag.
    /// - Throws: the errors of ``next()``.
    public mutating func skipElement() throws(XMLError) {
        var depth = 1
        while let event = try next() {
            switch event {
            case .startElement:
                depth += 1
            case .endElement:
                depth -= 1
                if depth == 0 { return }
            case .text:
                continue
            }
        }
    }
}
