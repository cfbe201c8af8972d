import SafeXML

extension XMLPullParser {
    /// The next start tag among the children of the current element, or `nil` at the current element's end tag.
    /// Text between children is skipped.
    mutating func nextChildElement() throws(XMLError) -> XMLElementStart? {
        while let event = try next() {
            switch event {
            case .startElement(let start): return start
            case .endElement: return nil
            case .text: continue
            }
        }
        return nil
    }
}
