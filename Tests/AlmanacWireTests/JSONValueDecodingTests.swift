import Testing

@testable import AlmanacWire

@Suite struct JSONValueDecodingTests {
    @Test func decodesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #"{"a":null,"b":true,"c":false,"d":42,"e":-1.5,"f":"x","g":[1,[2]],"h":{}}"#)
        #expect(value["a"] == .null)
        #expect(value["b"] == .bool(true))
        #expect(value["c"] == .bool(false))
        #expect(value["d"] == .int(42))
        #expect(value["e"] == .double(-1.5))
        #expect(value["f"] == .string("x"))
        #expect(value["g"] == .array([.int(1), .array([.int(2)])]))
        #expect(value["h"] == .object([:]))
    }

    @Test func keepsObjectKeysInOrder() throws {
        let value = try JSONValue(parsing: #"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.int(Int64.max)),
        ("-9223372036854775808", JSONValue.int(Int64.min)),
        ("9223372036854775808", JSONValue.double(9_223_372_036_854_775_808)),
        ("0", JSONValue.int(0)),
        ("-0", JSONValue.int(0)),
        ("1.0", JSONValue.double(1)),
        ("1e3", JSONValue.double(1000)),
        ("2E-2", JSONValue.double(0.02)),
    ])
    func keepsIntegersExact(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#)
        #expect(value == .string("a\"b\\c/d\u{8}\u{c}\n\r\té😀"))
    }

    @Test func decodesRawUTF8() throws {
        #expect(try JSONValue(parsing: "\"Grüße 😀\"") == .string("Grüße 😀"))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "01", "1.", ".5", "-", "1e", "+1", "NaN",
        "Infinity", "tru", "nul", "'a'", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"", "{\"a\":1}x", "[1] [2]", "\"a\nb\"", "{\"a\":1,\"a\":2}", "1e400", "{1:2}",
    ])
    func rejectsMalformedInput(text: String) {
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: text) }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: bytes) }
        let overlong: [UInt8] = [0x22, 0xC0, 0xAF, 0x22]
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: overlong) }
        let escaped: [UInt8] = Array(#""\n"#.utf8) + [0xFF, 0x22]
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: escaped) }
    }

    @Test func reportsTheOffsetOfTrailingGarbage() throws {
        do {
            _ = try JSONValue(parsing: #"{"a":1}  x"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .parseError)
            #expect(error.offset == 9)
        }
    }

    @Test func limitsNestingDepth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONValue(parsing: ok)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: deep) }
        let deepObjects = String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(throws: WireError.parseError("", offset: 0)) { try JSONValue(parsing: deepObjects) }
    }

    @Test func acceptsSurroundingWhitespace() throws {
        #expect(try JSONValue(parsing: " \t\r\n[ 1 , 2 ]\r\n ") == [1, 2])
    }
}
