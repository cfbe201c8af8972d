import AlmanacWire
import Testing

/// The one reply encoder writes what the envelope and the typed bodies' `json` describe, byte for byte.
struct ReplyEncodingTests {
    static let object = WireObject(
        uri: "x-coredata://S/Session/p1", entity: "Session", store: "S",
        values: ["title": "Line\nbreak \"quoted\"", "start": "2026-11-23T08:00:00Z", "room.name": .null]
    )

    /// The line the envelope's members give: `id`, `ok`, then the body's fields.
    func expectedLine(id: JSONValue, body: JSONObject) -> String {
        var envelope: JSONObject = ["id": id, "ok": true]
        for (key, value) in body { envelope[key] = value }
        return JSONValue.object(envelope).encodedString() + "\n"
    }

    func line(id: JSONValue, body: some WireReplyBody) -> String {
        var bytes: [UInt8] = []
        WireResponse.encodeLine(id: id, body: body, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func typedBodiesEncodeAsTheirFields() {
        let fetch = WireResponse.Fetch(objects: [Self.object, Self.object.withEncodingKept()], total: 7)
        #expect(line(id: 1, body: fetch) == expectedLine(id: 1, body: fetch.json))
        let count = WireResponse.Count(count: 41)
        #expect(line(id: "a", body: count) == #"{"id":"a","ok":true,"count":41}"# + "\n")
        let get = WireResponse.Get(object: Self.object)
        #expect(line(id: .null, body: get) == expectedLine(id: .null, body: get.json))
        #expect(line(id: 2, body: WireResponse.Empty()) == #"{"id":2,"ok":true}"# + "\n")
        let stats = WireResponse.Stats(
            requests: 3, errors: 1, latency: .init(p50: 0.5, p90: 1, p99: 2, max: 4), stores: 2, objects: 9,
            residentMemory: 1024, subscribers: 1, uptime: 12.5)
        #expect(line(id: 3, body: stats) == expectedLine(id: 3, body: stats.json))
    }

    @Test func aFieldsObjectSkipsTheEnvelopesOwnKeys() {
        let body: JSONObject = ["id": 99, "ok": false, "answer": 42]
        #expect(line(id: 5, body: body) == #"{"id":5,"ok":true,"answer":42}"# + "\n")
        #expect(
            String(decoding: WireResponse.success(id: 5, body: body).encodedLine(), as: UTF8.self)
                == #"{"id":5,"ok":true,"answer":42}"# + "\n")
    }

    @Test func failuresCarryTheErrorObject() throws {
        let error = WireError(code: .notFound, message: "No object has the URI x.")
        var bytes: [UInt8] = []
        WireResponse.encodeLine(id: 9, error: error, into: &bytes)
        #expect(bytes.last == 0x0A)
        guard case .response(.failure(let id, let decoded)) = try WireMessage(line: bytes.dropLast()) else {
            Issue.record("not a failure: \(String(decoding: bytes, as: UTF8.self))")
            return
        }
        #expect(id == 9)
        #expect(decoded.code == .notFound)
        #expect(decoded.message == error.message)
    }

    @Test func aKeptObjectEncodingIsDroppedWhenTheObjectChanges() {
        var kept = Self.object.withEncodingKept()
        #expect(kept == Self.object)
        let copy = kept
        kept.values["title"] = "Changed"
        var bytes: [UInt8] = []
        kept.encode(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""title":"Changed""#))
        // The copy made before keeps its fields and its encoding (the fields are shared until one is set).
        #expect(copy == Self.object && copy.values["title"] != "Changed")
        var copyBytes: [UInt8] = []
        copy.encode(into: &copyBytes)
        var plainBytes: [UInt8] = []
        Self.object.encode(into: &plainBytes)
        #expect(copyBytes == plainBytes)
        // Every field set drops the encoding.
        for change in [
            { (object: inout WireObject) in object.uri = "x-og://changed" },
            { (object: inout WireObject) in object.entity = "Changed" },
            { (object: inout WireObject) in object.store = "changed-store" },
        ] {
            var changed = Self.object.withEncodingKept()
            change(&changed)
            var changedBytes: [UInt8] = []
            changed.encode(into: &changedBytes)
            #expect(changedBytes != plainBytes && String(decoding: changedBytes, as: UTF8.self).contains("hanged"))
        }
    }

    @Test func eventsEncodeAsOneLine() {
        let event = WireEvent(kind: .storeAttached, fields: ["file": "/inbox/a.xml", "store": "S"])
        #expect(
            String(decoding: event.encodedLine(), as: UTF8.self)
                == #"{"event":"storeAttached","file":"/inbox/a.xml","store":"S"}"# + "\n")
    }
}
