import Foundation
import SafeXML

/// Reads every event of `xml`.
func events(of xml: String, limits: XMLLimits = .default) throws(XMLError) -> [XMLEvent] {
    try events(of: Data(xml.utf8), limits: limits)
}

func events(of data: Data, limits: XMLLimits = .default) throws(XMLError) -> [XMLEvent] {
    var parser = try XMLPullParser(data: data, name: "test.xml", limits: limits)
    var result: [XMLEvent] = []
    while let event = try parser.next() {
        result.append(event)
    }
    return result
}

/// Runs `body` and returns the `XMLError` it threw, or `nil`.
func xmlError(_ body: () throws(XMLError) -> Void) -> XMLError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

extension XMLEvent {
    static func start(_ name: String, _ attributes: [(String, String)] = [], line: Int, isEmpty: Bool = false)
        -> XMLEvent
    {
        .startElement(
            XMLElementStart(
                name: name,
                attributes: attributes.map { XMLAttribute(name: $0.0, value: $0.1) },
                line: line,
                isEmpty: isEmpty
            )
        )
    }

    static func end(_ name: String) -> XMLEvent {
        .endElement(name: name)
    }
}
