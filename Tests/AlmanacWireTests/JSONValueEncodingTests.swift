import Testing

@testable import AlmanacWire

@Suite struct JSONValueEncodingTests {
    @Test func encodesCompactlyInInsertionOrder() {
        let value: JSONValue = ["b": 1, "a": [true, nil, "x"], "c": ["d": 1.5]]
        #expect(value.encodedString() == #"{"b":1,"a":[true,null,"x"],"c":{"d":1.5}}"#)
    }

    @Test func sortsKeysWhenAsked() {
        let value: JSONValue = ["b": 1, "a": ["z": 1, "y": 2], "C": 3]
        #expect(value.encodedString(sortingKeys: true) == #"{"C":3,"a":{"y":2,"z":1},"b":1}"#)
    }

    @Test func neverEmitsARawNewline() {
        let value: JSONValue = ["text": "line 1\nline 2\r\n\u{0}\u{1F}\u{7F}\"\\"]
        let bytes = value.encoded()
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x0D))
        #expect(value.encodedString() == #"{"text":"line 1\nline 2\r\n\u0000\u001f\u007f\"\\"}"#)
    }

    @Test func keepsNonASCIIAsUTF8() {
        #expect(JSONValue.string("é😀").encodedString() == "\"é😀\"")
    }

    @Test(arguments: [0.1, 1.0, -2.5, 1e-5, 1e20, 123456.789, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude])
    func doublesRoundTrip(value: Double) throws {
        let encoded = JSONValue.double(value).encodedString()
        #expect(try JSONValue(parsing: encoded) == .double(value))
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONValue.double(.nan).encodedString() == "null")
        #expect(JSONValue.double(.infinity).encodedString() == "null")
    }

    @Test func integersRoundTripExactly() throws {
        for value in [Int64.max, Int64.min, 0, -1, 9_007_199_254_740_993] {
            #expect(try JSONValue(parsing: JSONValue.int(value).encodedString()) == .int(value))
        }
    }

    @Test func decodeEncodeRoundTripsArbitraryDocuments() throws {
        let text = #"{"id":[1,"a",null],"op":"fetch","v":{"t":"tab\there","u":"\u2028","n":-0.5e-3}}"#
        let value = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: value.encoded()) == value)
    }

    @Test func objectEqualityIgnoresKeyOrder() {
        let a: JSONValue = ["x": 1, "y": 2]
        let b: JSONValue = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test func settingNilRemovesAKey() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = nil
        object["c"] = 3
        object["b"] = 4
        #expect(object.keys == ["b", "c"])
        #expect(JSONValue.object(object).encodedString() == #"{"b":4,"c":3}"#)
    }

    @Test func aKeptEncodingIsReusedUntilTheObjectChanges() {
        let plain: JSONObject = ["title": "Keynote", "room": ["name": "Hall A"], "n": 3]
        var kept = plain.withEncodingKept()
        #expect(kept == plain)
        #expect(JSONValue.array([.object(kept)]).encodedString() == #"[{"title":"Keynote","room":{"name":"Hall A"},"n":3}]"#)
        #expect(JSONValue.object(kept).encodedString(sortingKeys: true) == #"{"n":3,"room":{"name":"Hall A"},"title":"Keynote"}"#)
        kept["n"] = 4
        #expect(JSONValue.object(kept).encodedString() == #"{"title":"Keynote","room":{"name":"Hall A"},"n":4}"#)
        kept["title"] = nil
        #expect(JSONValue.object(kept).encodedString() == #"{"room":{"name":"Hall A"},"n":4}"#)
    }
}
