import AlmanacDaemon
import AlmanacWire
import Foundation
import Testing

/// Random and malformed requests never crash the engine: each gets a wire error or an answer, and the data does
/// not change unless a write succeeded.
@Suite("Request fuzzing")
struct RequestFuzzTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let ops = ["hello", "ping", "model", "stores", "fetch", "count", "template", "get", "insert", "update",
                      "delete", "changes", "stats", "nope", ""]
    static let keys = ["entity", "predicate", "variables", "sort", "limit", "offset", "properties", "stores",
                       "includeSubentities", "name", "uri", "values", "store", "conference", "key"]
    static let strings = ["Session", "Favorite", "Run", "Nope", "title == $X", "title ===", "ANY persons.name == 'a'",
                          "persons.name == 'a'", "SUBQUERY(persons, $p, $p.name BEGINSWITH 'A').@count > 0",
                          "x-coredata://nope/Session/p1", "SessionsInRoom", "room.name", "start", "-1", "",
                          "'; DROP TABLE ZSESSION; --", "\u{0}", String(repeating: "(", count: 300), "guid"]

    func randomValue(_ generator: inout Generator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 5 : 8), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int64.random(in: -5...100, using: &generator))
        case 3: return .double(Double.random(in: -1e9...1e9, using: &generator))
        case 4: return .string(Self.strings.randomElement(using: &generator)!)
        case 5: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in
            randomValue(&generator, depth: depth + 1)
        })
        default:
            var object: JSONObject = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                object[Self.keys.randomElement(using: &generator)!] = randomValue(&generator, depth: depth + 1)
            }
            if Bool.random(using: &generator) { object["key"] = .string("title") }
            return .object(object)
        }
    }

    @Test func randomRequestsOnlyEverGetWireErrorsOrAnswers() throws {
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"])
        defer { fixture.remove() }
        var generator = Generator(state: 20_261_121)
        var answered = 0, refused = 0
        for _ in 0..<3_000 {
            var fields: JSONObject = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &generator) {
                fields[Self.keys.randomElement(using: &generator)!] = randomValue(&generator)
            }
            if Bool.random(using: &generator) { fields["entity"] = .string(Self.strings.randomElement(using: &generator)!) }
            let op = Self.ops.randomElement(using: &generator)!
            do {
                _ = try fixture.request(op, fields)
                answered += 1
            } catch {
                refused += 1
            }
        }
        #expect(answered + refused == 3_000)
        #expect(refused > 0)
        #expect(try fixture.request("count", ["entity": "Session"])["count"] == 18)
    }
}
