import AlmanacWire
import Testing

@testable import AlmanacDaemon

@Suite(.timeLimit(.minutes(1)))
struct SubscriptionOrderTests {
    /// The subscription starts before `subscribed` is written: an event published as soon as the client has read
    /// the answer reaches it (it used to be lost when the server subscribed after writing).
    @Test func anEventPublishedRightAfterTheSubscribedAnswerIsDelivered() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                for round in 1...20 {
                    let id = JSONValue.int(Int64(round))
                    if round == 1 {
                        try await client.send(WireRequest(id: id, op: "subscribe"))
                        let answer = try #require(try await client.readObject())
                        #expect(answer["id"] == id)
                        #expect(answer["subscribed"] == true)
                    }
                    #expect(handler.publish(WireEvent(kind: .objectsChanged, fields: ["round": id])) == 1)
                    let event = try #require(try await client.readObject())
                    #expect(event["event"] == "objectsChanged")
                    #expect(event["round"] == id)
                }
            }
        }
    }
}
