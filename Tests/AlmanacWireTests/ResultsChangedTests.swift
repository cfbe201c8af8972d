import AlmanacWire
import Testing

/// The `resultsChanged` event's fields: read back as written, and applied to a client's list as documented.
struct ResultsChangedTests {
    static func object(_ uri: String) -> WireObject {
        WireObject(uri: uri, entity: "Session", store: "S", values: ["title": .string(uri)])
    }

    @Test func fieldsReadBackAsWritten() throws {
        let changes = WireEvent.ResultsChanged(
            inserted: [.init(position: 0, object: Self.object("n"))], deleted: [.init(position: 2, uri: "c")],
            moved: [.init(from: 0, to: 2, object: Self.object("a"))],
            updated: [.init(position: 1, object: Self.object("b"))])
        let line = changes.event.encodedLine()
        let message = try WireEvent(json: try #require(try JSONValue(parsing: line.dropLast()).objectValue))
        #expect(message.kind == .resultsChanged)
        #expect(try WireEvent.ResultsChanged(json: message.fields) == changes)
    }

    @Test func changesApplyToTheOldListAsDocumented() {
        let changes = WireEvent.ResultsChanged(
            inserted: [.init(position: 0, object: Self.object("n"))], deleted: [.init(position: 2, uri: "c")],
            moved: [.init(from: 0, to: 2, object: Self.object("a"))],
            updated: [.init(position: 1, object: Self.object("b"))])
        #expect(changes.applied(to: ["a", "b", "c"]) == ["n", "b", "a"])
        // Made for another list: refused, nothing applied.
        #expect(changes.applied(to: ["a"]) == nil)
    }

    @Test func anEntryWithoutItsObjectIsABadRequest() throws {
        do {
            _ = try WireEvent.ResultsChanged(json: ["inserted": .array([.object(["position": .int(0)])])])
            Issue.record("expected bad_request")
        } catch {
            #expect(error.code == .badRequest)
        }
    }
}
