import Foundation
import SafeXML
import Testing

@Suite struct XMLPullParserHostileInputTests {
    @Test func strayNewlineBeforeDeclarationIsNotWellFormedWithLine() {
        let error = xmlError { () throws(XMLError) in _ = try events(of: "\n<?xml version=\"1.0\"?>\n<a/>") }
        #expect(error?.code == .notWellFormed)
        #expect(error?.line == 2)
        #expect(error?.fileName == "test.xml")
    }

    @Test func errorCarriesLineAndColumn() {
        let error = xmlError { () throws(XMLError) in _ = try events(of: "<a>\n  <b>\n  </c>\n</a>") }
        #expect(error?.code == .notWellFormed)
        #expect(error?.line == 3)
        #expect((error?.column ?? 0) > 0)
    }

    @Test(arguments: [1, 5, 12, 20, 31, 40, 47])
    func truncatedInputIsRejected(length: Int) {
        let xml = #"<?xml version="1.0"?><root a="1"><b>text</b></root>"#
        let error = xmlError { () throws(XMLError) in _ = try events(of: String(xml.prefix(length))) }
        #expect(error != nil)
        #expect(error?.code == .notWellFormed || error?.code == .emptyDocument)
    }

    @Test func emptyInputIsEmptyDocument() {
        #expect(xmlError { () throws(XMLError) in _ = try events(of: "") }?.code == .emptyDocument)
        #expect(
            xmlError { () throws(XMLError) in _ = try events(of: "<?xml version=\"1.0\"?>  ") }?.code == .emptyDocument)
    }

    @Test func randomBytesAfterRootStartAreRejected() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var data = Data("<root><a>".utf8)
            data.append(contentsOf: (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let error = xmlError { () throws(XMLError) in _ = try events(of: data) }
            #expect(error != nil)
        }
    }

    @Test func contentAfterRootIsRejected() {
        #expect(xmlError { () throws(XMLError) in _ = try events(of: "<a/><b/>") }?.code == .notWellFormed)
    }

    @Test func invalidUTF8IsRejected() {
        var data = Data("<a>caf".utf8)
        data.append(contentsOf: [0xC3, 0x28, 0xFF])
        data.append(contentsOf: Data("</a>".utf8))
        let error = xmlError { () throws(XMLError) in _ = try events(of: data) }
        #expect(error?.code == .invalidEncoding)
        #expect(error?.line == 1)
    }

    @Test func deepNestingIsRejectedQuickly() {
        let depth = 100_000
        let xml = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        let clock = ContinuousClock()
        var error: XMLError?
        let elapsed = clock.measure {
            error = xmlError { () throws(XMLError) in _ = try events(of: xml) }
        }
        #expect(error?.code == .tooDeep)
        #expect(elapsed < .seconds(2))
    }

    @Test func customDepthLimitIsEnforced() {
        let xml = String(repeating: "<a>", count: 11) + String(repeating: "</a>", count: 11)
        let limits = XMLLimits(maxDepth: 10)
        #expect(xmlError { () throws(XMLError) in _ = try events(of: xml, limits: limits) }?.code == .tooDeep)
        #expect(throws: Never.self) { try events(of: xml, limits: XMLLimits(maxDepth: 11)) }
    }

    @Test func depthAboveLibxml2CapWorksWhenAllowed() throws {
        let depth = 1000
        let xml = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(try events(of: xml, limits: XMLLimits(maxDepth: depth)).count == 2 * depth)
    }

    @Test func sizeLimitIsEnforced() {
        let xml = "<a>" + String(repeating: "x", count: 1000) + "</a>"
        let error = xmlError { () throws(XMLError) in _ = try events(of: xml, limits: XMLLimits(maxBytes: 100)) }
        #expect(error?.code == .tooLarge)
    }

    @Test func textLengthLimitIsEnforced() {
        let xml = "<a>" + String(repeating: "x", count: 1000) + "</a>"
        let error = xmlError { () throws(XMLError) in _ = try events(of: xml, limits: XMLLimits(maxTextLength: 100)) }
        #expect(error?.code == .textTooLong)
    }

    /// Through `readText` too, whether the element holds one text node or texts coalesced across a comment; text
    /// at the limit passes.
    @Test func textLengthLimitIsEnforcedByReadText() throws {
        let limits = XMLLimits(maxTextLength: 100)
        let long = String(repeating: "x", count: 101)
        let half = String(repeating: "y", count: 60)
        for xml in ["<r><a>\(long)</a></r>", "<r><a>\(half)<!--c-->\(half)</a></r>"] {
            var parser = try XMLPullParser(data: Data(xml.utf8), limits: limits)
            _ = try parser.next()
            _ = try parser.next()
            let error = xmlError { () throws(XMLError) in _ = try parser.readText() }
            #expect(error?.code == .textTooLong, "\(xml.prefix(20))")
        }
        let atLimit = String(repeating: "z", count: 100)
        var parser = try XMLPullParser(data: Data("<r><a>\(atLimit)</a></r>".utf8), limits: limits)
        _ = try parser.next()
        _ = try parser.next()
        #expect(try parser.readText() == atLimit)
    }

    @Test func billionLaughsIsRejectedQuickly() {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
             <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
             <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
             <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
             <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
             <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
             <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
             <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
             <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
            ]>
            <lolz a="&lol9;">&lol9;</lolz>
            """
        let clock = ContinuousClock()
        var error: XMLError?
        let elapsed = clock.measure {
            error = xmlError { () throws(XMLError) in _ = try events(of: xml) }
        }
        #expect(error?.code == .entityDeclarationForbidden)
        #expect(elapsed < .seconds(1))
    }

    @Test func externalEntityIsRejectedAndNeverExpanded() throws {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
            <foo>before &xxe; after</foo>
            """
        var seen: [XMLEvent] = []
        let error = xmlError { () throws(XMLError) in
            var parser = try XMLPullParser(data: Data(xml.utf8))
            while let event = try parser.next() { seen.append(event) }
        }
        #expect(error?.code == .entityDeclarationForbidden)
        #expect(!seen.contains { "\($0)".contains("root:") })
    }

    @Test func externalParameterEntityIsRejected() {
        let xml = """
            <!DOCTYPE foo [ <!ENTITY % xxe SYSTEM "file:///etc/passwd"> %xxe; ]>
            <foo/>
            """
        #expect(xmlError { () throws(XMLError) in _ = try events(of: xml) }?.code == .entityDeclarationForbidden)
    }

    @Test func networkEntityIsRejected() {
        let xml = """
            <!DOCTYPE foo [ <!ENTITY net SYSTEM "http://127.0.0.1:9/x"> ]>
            <foo>&net;</foo>
            """
        #expect(xmlError { () throws(XMLError) in _ = try events(of: xml) }?.code == .entityDeclarationForbidden)
    }

    @Test func undeclaredEntityIsRejected() {
        let error = xmlError { () throws(XMLError) in _ = try events(of: "<a>&nope;</a>") }
        #expect(error?.code == .entityDeclarationForbidden || error?.code == .notWellFormed)
    }

    @Test func errorIsStickyAfterFailure() throws {
        var parser = try XMLPullParser(data: Data("<a><b></a>".utf8))
        var first: XMLError?
        do {
            while try parser.next() != nil {}
        } catch {
            first = error
        }
        #expect(first?.code == .notWellFormed)
        #expect(xmlError { () throws(XMLError) in _ = try parser.next() } == first)
    }
}
