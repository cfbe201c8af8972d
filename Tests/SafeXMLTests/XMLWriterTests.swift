import Foundation
import SafeXML
import Testing

@Suite struct XMLWriterTests {
    @Test func writesIndentedDeterministicOutput() throws {
        var writer = XMLWriter()
        writer.writeDeclaration(standalone: true)
        try writer.writeDocumentType(name: "database", systemID: "file:///System/Library/DTDs/CoreData.dtd")
        try writer.startElement("database")
        try writer.startElement("object", attributes: [("type", "NOTE"), ("id", "z102")])
        try writer.writeElement("attribute", attributes: [("name", "title"), ("type", "string")], text: "A & B")
        try writer.writeElement("relationship", attributes: [("name", "folder")])
        try writer.endElement()
        try writer.endElement()
        let output = String(decoding: try writer.finish(), as: UTF8.self)
        #expect(
            output == """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
                <database>
                    <object type="NOTE" id="z102">
                        <attribute name="title" type="string">A &amp; B</attribute>
                        <relationship name="folder"/>
                    </object>
                </database>

                """
        )
    }

    @Test func compactOutputHasNoNewLinesInside() throws {
        var writer = XMLWriter(configuration: .init(indentation: nil))
        try writer.startElement("a")
        try writer.writeElement("b", text: "x")
        try writer.endElement()
        #expect(String(decoding: try writer.finish(), as: UTF8.self) == "<a><b>x</b></a>\n")
    }

    @Test func escapesTextAndAttributes() throws {
        var writer = XMLWriter(configuration: .init(indentation: nil))
        try writer.writeElement("a", attributes: [("v", "<\"&'>\t\n\r")], text: "<&>\"'\t\n\r]]>")
        let output = String(decoding: try writer.finish(), as: UTF8.self)
        #expect(output == "<a v=\"&lt;&quot;&amp;'&gt;&#9;&#10;&#13;\">&lt;&amp;&gt;\"'\t\n&#13;]]&gt;</a>\n")
    }

    static let roundTripStrings = [
        "plain", "", "  leading and trailing  ", "a & b < c > d \" e ' f", "tab\tnew\nline\r\ncr\r",
        "]]> <![CDATA[", "Grüße, 日本語, 😀🇩🇪", "&amp; is not decoded twice", "\u{7F}\u{85}\u{9F}", "\u{FFFD}",
    ]

    @Test(arguments: roundTripStrings)
    func writtenTextAndAttributesReadBackUnchanged(value: String) throws {
        var writer = XMLWriter()
        writer.writeDeclaration()
        try writer.startElement("root", attributes: [("value", value)])
        try writer.writeElement("text", attributes: [("v", value)], text: value)
        try writer.endElement()
        var parser = try XMLPullParser(data: Data(try writer.finish()))
        guard case .startElement(let root) = try parser.next() else {
            Issue.record("expected root")
            return
        }
        #expect(root[attribute: "value"] == value)
        var text: XMLElementStart?
        while let event = try parser.next() {
            if case .startElement(let start) = event {
                text = start
                break
            }
        }
        #expect(text?[attribute: "v"] == value)
        #expect(try parser.readText() == value)
    }

    @Test func invalidCharactersAreRejectedByDefault() {
        for value in ["\u{0}", "a\u{1}b", "\u{1F}", "\u{FFFE}", "x\u{FFFF}"] {
            var writer = XMLWriter()
            let error = xmlError { () throws(XMLError) in try writer.writeElement("a", text: value) }
            #expect(error?.code == .invalidCharacter)
            var attributeWriter = XMLWriter()
            let attributeError = xmlError { () throws(XMLError) in
                try attributeWriter.writeElement("a", attributes: [("v", value)])
            }
            #expect(attributeError?.code == .invalidCharacter)
        }
    }

    @Test func invalidCharactersCanBeReplaced() throws {
        var writer = XMLWriter(configuration: .init(indentation: nil, invalidCharacters: .replace))
        try writer.writeElement("a", text: "x\u{1}y\u{FFFF}z")
        #expect(String(decoding: try writer.finish(), as: UTF8.self) == "<a>x\u{FFFD}y\u{FFFD}z</a>\n")
    }

    @Test(arguments: ["", "1a", "-a", "a b", "a<b", "a\"", "a=b", "a/b"])
    func invalidNamesAreRejected(name: String) {
        var writer = XMLWriter()
        #expect(xmlError { () throws(XMLError) in try writer.startElement(name) }?.code == .invalidName)
        var attributeWriter = XMLWriter()
        let error = xmlError { () throws(XMLError) in try attributeWriter.startElement("a", attributes: [(name, "v")]) }
        #expect(error?.code == .invalidName)
    }

    @Test func unbalancedUseThrows() throws {
        var writer = XMLWriter()
        #expect(xmlError { () throws(XMLError) in try writer.endElement() }?.code == .unbalancedWriter)
        #expect(xmlError { () throws(XMLError) in try writer.writeText("x") }?.code == .unbalancedWriter)
        try writer.startElement("a")
        #expect(xmlError { () throws(XMLError) in _ = try writer.finish() }?.code == .unbalancedWriter)
        try writer.endElement()
        #expect(xmlError { () throws(XMLError) in try writer.startElement("b") }?.code == .unbalancedWriter)
    }

    @Test func mixedContentIsNotReindentedAfterText() throws {
        var writer = XMLWriter()
        try writer.startElement("p")
        try writer.writeText("Hello ")
        try writer.writeElement("b", text: "world")
        try writer.writeText("!")
        try writer.endElement()
        #expect(String(decoding: try writer.finish(), as: UTF8.self) == "<p>Hello <b>world</b>!</p>\n")
    }

    @Test func writtenDocumentStructureReadsBack() throws {
        var writer = XMLWriter()
        writer.writeDeclaration(standalone: true)
        try writer.writeDocumentType(name: "database", systemID: "file:///System/Library/DTDs/CoreData.dtd")
        try writer.startElement("database")
        for index in 0..<3 {
            try writer.startElement("object", attributes: [("type", "T"), ("id", "z\(index)")])
            try writer.writeElement("attribute", attributes: [("name", "n")], text: "v\(index)")
            try writer.endElement()
        }
        try writer.endElement()
        let readBack = try events(of: Data(try writer.finish())).filter {
            if case .text(let text) = $0 { return !text.allSatisfy(\.isWhitespace) }
            return true
        }
        #expect(readBack.count == 2 + 3 * 5)
        #expect(readBack.contains(.text("v2")))
    }
}
