import Testing

@testable import AlmanacWire

@Suite struct WireMessageTests {
    private func request(_ text: String) throws -> WireRequest {
        try WireRequest(line: Array(text.utf8))
    }

    @Test func decodesAFetchRequestWithEveryField() throws {
        let request = try request(
            #"{"id":7,"op":"fetch","entity":"Session","predicate":"start <= $NOW","variables":{"NOW":"2024-12-27T10:00:00Z"},"sort":[{"key":"start"},{"key":"title","ascending":false,"comparison":"caseInsensitive"}],"limit":10,"offset":5,"properties":["title","room.name"],"stores":["a.xml"],"includeSubentities":false}"#
        )
        #expect(request.id == 7)
        guard case .fetch(let fetch) = try WireCommand(request) else {
            Issue.record("expected fetch")
            return
        }
        #expect(fetch.entity == "Session")
        #expect(fetch.predicate == "start <= $NOW")
        #expect(fetch.variables["NOW"] == "2024-12-27T10:00:00Z")
        #expect(
            fetch.sort == [
                .init(key: "start"), .init(key: "title", ascending: false, comparison: .caseInsensitive),
            ]
        )
        #expect(fetch.limit == 10)
        #expect(fetch.offset == 5)
        #expect(fetch.properties == ["title", "room.name"])
        #expect(fetch.stores == ["a.xml"])
        #expect(fetch.includesSubentities == false)
    }

    @Test func typedRequestsRoundTripThroughTheEnvelope() throws {
        let commands: [WireCommand] = [
            .hello(.init(client: "almanac 1.0")), .ping, .model, .stores,
            .fetch(.init(entity: "Session", predicate: "title CONTAINS[cd] $T", variables: ["T": "swift"], sort: [.init(key: "start")], limit: 3)),
            .count(.init(entity: "Room")),
            .template(.init(name: "SearchSessions", variables: ["TEXT": "nio"], limit: 2)),
            .get(.init(uri: "x-almanac://s/Session/p1")),
            .insert(.init(entity: "Favorite", values: ["sessionGUID": "g"], store: "favorites.sqlite")),
            .update(.init(uri: "x-almanac://s/Favorite/p2", values: ["note": "hi"])),
            .delete(.init(uri: "x-almanac://s/Favorite/p2")),
            .changes(.init(conference: "31c3")), .subscribe(),
            .subscribe(.init(fetch: .init(entity: "Session", sort: [.init(key: "start")], limit: 5))), .stats,
        ]
        for command in commands {
            let line = command.request(id: "r1").encodedLine()
            #expect(line.last == 0x0A)
            #expect(line.dropLast().contains(0x0A) == false)
            let decoded = try WireRequest(line: line.dropLast())
            #expect(decoded.id == "r1")
            #expect(try WireCommand(decoded) == command)
        }
    }

    @Test(arguments: [
        (#"{"op":"fetch"}"#, "entity"),
        (#"{"op":"fetch","entity":5}"#, "entity"),
        (#"{"op":"fetch","entity":"S","limit":"3"}"#, "limit"),
        (#"{"op":"fetch","entity":"S","limit":-1}"#, "limit"),
        (#"{"op":"fetch","entity":"S","variables":[]}"#, "variables"),
        (#"{"op":"fetch","entity":"S","sort":[{"key":"a","comparison":"fuzzy"}]}"#, "sort"),
        (#"{"op":"fetch","entity":"S","sort":["a"]}"#, "sort"),
        (#"{"op":"fetch","entity":"S","properties":[1]}"#, "properties"),
        (#"{"op":"template","variables":{}}"#, "name"),
        (#"{"op":"insert","entity":"Favorite"}"#, "values"),
        (#"{"op":"update","values":{}}"#, "uri"),
        (#"{"op":"get","uri":""}"#, "uri"),
        (#"{"op":"subscribe","fetch":{"limit":2}}"#, "entity"),
        (#"{"op":"subscribe","fetch":"Session"}"#, "fetch"),
    ])
    func badFieldsNameTheField(text: String, field: String) throws {
        do {
            _ = try WireCommand(try request(text))
            Issue.record("expected bad_request for \(text)")
        } catch let error as WireError {
            #expect(error.code == .badRequest)
            #expect(error.field == field)
        }
    }

    @Test func unknownOperationIsUnknownOp() throws {
        #expect(throws: WireError(code: .unknownOp, message: "")) { try WireCommand(try request(#"{"op":"dance"}"#)) }
    }

    @Test func malformedLinesAreBadRequests() {
        for text in ["{", "[1]", "\"x\"", #"{"id":1}"#, #"{"op":3}"#] {
            #expect(throws: WireError(code: .badRequest, message: "")) { try request(text) }
        }
    }

    @Test func missingIdIsNull() throws {
        #expect(try request(#"{"op":"ping"}"#).id == .null)
    }

    @Test func successAndFailureEnvelopes() throws {
        let success = WireResponse.success(id: ["a": 1], body: ["count": 3, "ok": false])
        #expect(JSONValue.object(success.json).encodedString() == #"{"id":{"a":1},"ok":true,"count":3}"#)
        let error = WireError.ambiguousStore("pick one", candidates: ["a.xml", "b.sqlite"])
        let failure = WireResponse.failure(id: 9, error: error)
        #expect(
            JSONValue.object(failure.json).encodedString()
                == #"{"id":9,"ok":false,"error":{"code":"ambiguous_store","message":"pick one","candidates":["a.xml","b.sqlite"]}}"#
        )
        guard case .response(let decoded) = try WireMessage(line: failure.encodedLine().dropLast()),
            case .failure(let id, let decodedError) = decoded
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(id == 9)
        #expect(decodedError.code == .ambiguousStore)
        #expect(decodedError.candidates == ["a.xml", "b.sqlite"])
        #expect(decodedError.message == "pick one")
    }

    @Test func parseErrorsCarryTheirOffset() throws {
        let error = WireError.parseError("unexpected token", offset: 12)
        let decoded = try WireError(json: error.json)
        #expect(decoded.offset == 12)
    }

    @Test func eventsAreRecognised() throws {
        let event = WireEvent(kind: .storeAttached, fields: ["store": ["id": "s1"]])
        guard case .event(let decoded) = try WireMessage(line: event.encodedLine().dropLast()) else {
            Issue.record("expected an event")
            return
        }
        #expect(decoded.kind == .storeAttached)
        #expect(decoded.fields["store"]?["id"] == "s1")
    }

    @Test func responseBodiesRoundTrip() throws {
        let object = WireObject(uri: "u1", entity: "Session", store: "s", values: ["title": "Talk", "duration": 30])
        let fetch = WireResponse.Fetch(objects: [object], total: 12)
        #expect(try WireResponse.Fetch(json: fetch.json) == fetch)
        let stores = WireResponse.Stores(stores: [
            .init(
                id: "s", file: "31c3.xml", type: "frab", configuration: nil, isReadOnly: true, objects: 100,
                loadedAt: WireDate.date(from: "2024-01-01T00:00:00Z"), error: nil
            )
        ])
        #expect(try WireResponse.Stores(json: stores.json) == stores)
        let changes = WireResponse.Changes(moved: [.init(object: object, previous: ["start": "2024-01-01T10:00:00Z"])])
        #expect(try WireResponse.Changes(json: changes.json) == changes)
        let stats = WireResponse.Stats(
            requests: 10, errors: 1, latency: .init(p50: 0.5, p90: 1, p99: 2, max: 3), stores: 2, objects: 500,
            residentMemory: 1 << 20, uptime: 12
        )
        #expect(try WireResponse.Stats(json: stats.json) == stats)
        let hello = WireResponse.Hello(version: "0.1", entities: ["Session"])
        #expect(try WireResponse.Hello(json: hello.json) == hello)
    }

    @Test func wireErrorsCompareByCode() {
        #expect(WireError(code: .notFound, message: "a") == WireError(code: .notFound, message: "b"))
        #expect(WireError(code: .notFound, message: "a") != WireError(code: .busy, message: "a"))
    }
}
