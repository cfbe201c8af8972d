import Foundation
import SafeXML
import Testing

@Suite struct XMLPullParserTests {
    @Test func readsElementsAttributesAndText() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <root a="1" b="two &amp; &lt;three&gt; &#x41;&#66;">
              <child>hello &amp; goodbye &#x41;</child>
              <empty x="y"/>
            </root>
            """
        let result = try events(of: xml)
        #expect(
            result == [
                .start("root", [("a", "1"), ("b", "two & <three> AB")], line: 2),
                .text("\n  "),
                .start("child", line: 3),
                .text("hello & goodbye A"),
                .end("child"),
                .text("\n  "),
                .start("empty", [("x", "y")], line: 4, isEmpty: true),
                .end("empty"),
                .text("\n"),
                .end("root"),
            ]
        )
    }

    @Test func lineNumbersStayExactPastSixteenBits() throws {
        let xml = "<r>" + String(repeating: "\n", count: 70_000) + "<a>\n  <b>x</b><c/></a>\n<d>y</d></r>"
        let lines = try events(of: xml).compactMap { event -> Int? in
            if case .startElement(let start) = event { return start.line }
            return nil
        }
        #expect(lines.prefix(3) == [1, 70_001, 70_002])
        #expect(lines.last == 70_003)
    }

    @Test func errorLinesStayExactPastSixteenBits() {
        let xml = "<r>" + String(repeating: "\n", count: 70_000) + "<a></b></r>"
        #expect(xmlError { () throws(XMLError) in _ = try events(of: xml) }?.line == 70_001)
    }

    @Test func attributeSubscriptFindsByName() throws {
        var parser = try XMLPullParser(data: Data(#"<object type="Note" id="z102"/>"#.utf8))
        guard case .startElement(let start) = try parser.next() else {
            Issue.record("expected a start element")
            return
        }
        #expect(start[attribute: "type"] == "Note")
        #expect(start[attribute: "id"] == "z102")
        #expect(start[attribute: "missing"] == nil)
    }

    @Test func coalescesTextCDATAAndSkipsCommentsAndProcessingInstructions() throws {
        let xml = "<a>one<![CDATA[ <two> & ]]><!-- comment -->three<?pi data?>four</a><!-- after -->"
        let result = try events(of: xml)
        #expect(result == [.start("a", line: 1), .text("one <two> & threefour"), .end("a")])
    }

    @Test func emptyElementProducesStartAndEnd() throws {
        #expect(try events(of: "<a/>") == [.start("a", line: 1, isEmpty: true), .end("a")])
        #expect(try events(of: "<a></a>") == [.start("a", line: 1), .end("a")])
    }

    @Test func ampersandsInAttributeValuesReadBackAsWritten() throws {
        // libxml2 hands SAX callbacks an `&` of a value as the text `&#38;`; written text that looks like that
        // must still come back as written.
        let xml = #"<a v="x &amp; y" w="&#38;" z="&amp;#38;" p="&amp;amp;"/>"#
        #expect(
            try events(of: xml) == [
                .start("a", [("v", "x & y"), ("w", "&"), ("z", "&#38;"), ("p", "&amp;")], line: 1, isEmpty: true),
                .end("a"),
            ])
    }

    /// Documents far larger than one chunk of input: tags and text cut by every chunk boundary come out whole,
    /// empty elements are told from ones with an end tag, and lines stay right.
    @Test func tagsAndTextAcrossChunkBoundariesComeOutWhole() throws {
        var xml = "<r>\n"
        var expected: [XMLEvent] = [.start("r", line: 1), .text("\n")]
        for index in 0..<4_000 {
            let line = index + 2
            let long = String(repeating: "é\(index % 10)", count: index % 37)
            switch index % 4 {
            case 0:
                xml += "<e k=\"\(long)\"/>\n"
                expected += [.start("e", [("k", long)], line: line, isEmpty: true), .end("e"), .text("\n")]
            case 1:
                xml += "<e></e>\n"
                expected += [.start("e", line: line), .end("e"), .text("\n")]
            case 2:
                xml += "<t>\(long)x</t>\n"
                expected += [.start("t", line: line), .text(long + "x"), .end("t"), .text("\n")]
            default:
                xml += "<n:t xmlns:n=\"urn:\(index)\">a<![CDATA[\(long)]]></n:t>\n"
                expected += [
                    .start("n:t", [("xmlns:n", "urn:\(index)")], line: line), .text("a" + long), .end("n:t"),
                    .text("\n"),
                ]
            }
        }
        xml += "</r>"
        expected.append(.end("r"))
        #expect(xml.utf8.count > 200_000)
        #expect(try events(of: xml) == expected)
        // readText takes the same texts, whether the queue holds them whole or not.
        var parser = try XMLPullParser(data: Data(xml.utf8))
        var texts: [String] = []
        while let event = try parser.next() {
            if case .startElement(let start) = event, start.name != "r" { texts.append(try parser.readText()) }
        }
        let elementTexts = (0..<4_000).map { index -> String in
            let long = String(repeating: "é\(index % 10)", count: index % 37)
            return index % 4 < 2 ? "" : (index % 4 == 2 ? long + "x" : "a" + long)
        }
        #expect(texts == elementTexts)
    }

    @Test func eventsBeforeAnErrorComeFirst() throws {
        var parser = try XMLPullParser(data: Data("<r><a>x</a><b></c></r>".utf8))
        #expect(try parser.next() == .start("r", line: 1))
        #expect(try parser.next() == .start("a", line: 1))
        #expect(try parser.next() == .text("x"))
        #expect(try parser.next() == .end("a"))
        #expect(try parser.next() == .start("b", line: 1))
        let error = xmlError { () throws(XMLError) in _ = try parser.next() }
        #expect(error?.code == .notWellFormed)
        #expect(error?.line == 1)
    }

    @Test func readTextReturnsTheWholeContentAndConsumesTheEndTag() throws {
        var parser = try XMLPullParser(data: Data("<r><a>x<b>y</b>z</a><c/><d>  </d></r>".utf8))
        _ = try parser.next()  // r
        _ = try parser.next()  // a
        #expect(try parser.readText() == "xyz")
        _ = try parser.next()  // c
        #expect(try parser.readText() == "")
        _ = try parser.next()  // d
        #expect(try parser.readText() == "  ")
        #expect(try parser.next() == .end("r"))
        #expect(try parser.next() == nil)
        #expect(try parser.next() == nil)
    }

    /// `readText` reads an element of one text node without making events; every other content (a comment between
    /// two texts, CDATA beside text, a child element, nothing) goes on event by event, with the same result.
    @Test func readTextOfEveryShapeOfContent() throws {
        let xml = """
            <r><a>plain</a><b>one<!--c-->two</b><c>x<![CDATA[<y>]]></c><d><![CDATA[z]]></d><e></e>\
            <f><?pi?>after</f><g>t<h/>u</g><i>&#65;&amp;B</i><j>last</j></r>
            """
        var parser = try XMLPullParser(data: Data(xml.utf8))
        _ = try parser.next()  // r
        var texts: [String: String] = [:]
        while case .startElement(let start)? = try parser.next() {
            texts[start.name] = try parser.readText()
        }
        #expect(
            texts == [
                "a": "plain", "b": "onetwo", "c": "x<y>", "d": "z", "e": "", "f": "after", "g": "tu", "i": "A&B",
                "j": "last",
            ])
        #expect(try parser.next() == nil)
    }

    /// After `readText`, the events go on where the element ended: the next start, text and end come in order.
    @Test func eventsAfterReadTextContinueAtTheNextNode() throws {
        var parser = try XMLPullParser(data: Data("<r><a>x</a>between<b>y<c/></b>tail</r>".utf8))
        _ = try parser.next()  // r
        _ = try parser.next()  // a
        #expect(try parser.readText() == "x")
        #expect(try parser.next() == .text("between"))
        #expect(try parser.next() == .start("b", line: 1))
        #expect(try parser.next() == .text("y"))
        #expect(try parser.next() == .start("c", line: 1, isEmpty: true))
        #expect(try parser.next() == .end("c"))
        #expect(try parser.next() == .end("b"))
        #expect(try parser.next() == .text("tail"))
        #expect(try parser.next() == .end("r"))
        #expect(try parser.next() == nil)
    }

    /// An error met inside `readText` is thrown there and by every later call, as `next()` does.
    @Test func readTextThrowsAMalformedEndAndKeepsThrowingIt() throws {
        // The mismatch sits past libxml2's read-ahead, so the start of `a` is read without it.
        let text = String(repeating: "x", count: 100_000)
        var parser = try XMLPullParser(data: Data("<r><a>\(text)</b></r>".utf8))
        _ = try parser.next()
        _ = try parser.next()
        let first = xmlError { () throws(XMLError) in _ = try parser.readText() }
        #expect(first?.code == .notWellFormed)
        let again = xmlError { () throws(XMLError) in _ = try parser.next() }
        #expect(again == first)
    }

    /// A file with more element names than the parser's table of recent names (64) still names every element
    /// right, whichever slot two names share.
    @Test func manyDistinctNamesAreAllNamedRight() throws {
        let names = (0..<300).map { "element\($0)" }
        let body = names.map { "<\($0)>\($0)</\($0)>" }.joined()
        var parser = try XMLPullParser(data: Data("<r>\(body)\(body)</r>".utf8))
        _ = try parser.next()
        var seen: [String] = []
        while case .startElement(let start)? = try parser.next() {
            #expect(try parser.readText() == start.name)
            seen.append(start.name)
        }
        #expect(seen == names + names)
    }

    @Test func skipElementSkipsTheSubtree() throws {
        var parser = try XMLPullParser(data: Data("<r><a><b/>t</a><c/></r>".utf8))
        _ = try parser.next()
        _ = try parser.next()
        try parser.skipElement()
        #expect(try parser.next() == .start("c", line: 1, isEmpty: true))
    }

    @Test func preservesUnicodeAndNamespacePrefixes() throws {
        let xml = #"<x:r xmlns:x="urn:x" x:k="é😀"><x:c>Grüße 😀</x:c></x:r>"#
        let result = try events(of: xml)
        #expect(
            result == [
                .start("x:r", [("xmlns:x", "urn:x"), ("x:k", "é😀")], line: 1),
                .start("x:c", line: 1),
                .text("Grüße 😀"),
                .end("x:c"),
                .end("x:r"),
            ]
        )
    }

    @Test func readsUTF16WithByteOrderMark() throws {
        var data = Data([0xFF, 0xFE])
        data.append("<a>ü</a>".data(using: .utf16LittleEndian)!)
        #expect(try events(of: data) == [.start("a", line: 1), .text("ü"), .end("a")])
    }

    @Test func acceptsDoctypeWithSystemIdentifierOnly() throws {
        let xml = """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database><x>1</x></database>
            """
        let result = try events(of: xml)
        #expect(result == [.start("database", line: 4), .start("x", line: 4), .text("1"), .end("x"), .end("database")])
    }

    @Test func readsFromAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("safexml-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("<a>\(String(repeating: "x", count: 100_000))</a>".utf8).write(to: url)
        var parser = try XMLPullParser(contentsOfFile: url.path)
        _ = try parser.next()
        #expect(try parser.readText().count == 100_000)
    }

    @Test func missingFileThrowsIO() {
        let error = xmlError { () throws(XMLError) in _ = try XMLPullParser(contentsOfFile: "/nonexistent/x.xml") }
        #expect(error?.code == .io)
        #expect(error?.fileName == "/nonexistent/x.xml")
    }

    @Test(
        .enabled(if: sharedFixturesDirectory() != nil, "needs the shared fixtures folder (../shared or /work/shared)"))
    func readsTheCoreDataXMLStoreFixture() throws {
        let shared = try #require(sharedFixturesDirectory())
        let url = shared.appendingPathComponent("coredata/CoreDataDemo-xcmapping-xml-store.xml")
        var parser = try XMLPullParser(contentsOfFile: url.path)
        var objects = 0
        var attributes = 0
        var root: String?
        while let event = try parser.next() {
            guard case .startElement(let start) = event else { continue }
            if root == nil { root = start.name }
            if start.name == "object" {
                objects += 1
                #expect(start[attribute: "type"] != nil)
                #expect(start[attribute: "id"] != nil)
            }
            if start.name == "attribute" {
                attributes += 1
                _ = try parser.readText()
            }
        }
        #expect(root == "database")
        #expect(objects > 10)
        #expect(attributes > 10)
    }
}
