import AlmanacWire
import Foundation
import Testing

@testable import AlmanacDaemon

/// The connection limits on a live server: `busy` past a limit, naming it, slots freed on close, and the
/// request-line timeout.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionLimitServerTests {
    @Test func connectionsPastTheUsersLimitGetBusyUntilOneCloses() async throws {
        let limited = { (configuration: inout ServerConfiguration) in
            // The test process's own uid, which (as root or as the daemon's owner) has no limit of its own by default.
            configuration.connectionLimits.maxConnectionsByUser = [geteuid(): 2]
        }
        try await withServer(handler: TestHandler(), configure: limited) { path, _ in
            try await withClient(path) { first in
                try await first.send(WireRequest(id: 1, op: "ping"))
                #expect(try await first.readObject()?["ok"] == true)
                try await withClient(path) { second in
                    try await second.send(WireRequest(id: 2, op: "ping"))
                    #expect(try await second.readObject()?["ok"] == true)
                    try await withClient(path) { third in
                        let busy = try #require(try await third.readObject())
                        #expect(busy["id"] == .null)
                        #expect(busy["error"]?["code"] == "busy")
                        #expect(busy["error"]?["limit"] == "maxConnectionsPerUser")
                        #expect(busy["error"]?["value"] == 2)
                        #expect(try await third.readLine() == nil)
                    }
                }
                // The second connection closed: its slot is free again (the server sees the close a moment later).
                var answered = false
                for attempt in 0..<100 where !answered {
                    answered = try await withClient(path) { again in
                        guard (try? await again.send(WireRequest(id: .int(Int64(attempt)), op: "ping"))) != nil
                        else { return false }
                        return try await again.readObject()?["ok"] == true
                    }
                    if !answered { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(answered, "the closed connection's slot was never freed")
                // The first connection was served all along.
                try await first.send(WireRequest(id: 3, op: "ping"))
                #expect(try await first.readObject()?["id"] == 3)
            }
        }
    }

    @Test func connectionsPastTheTotalGetBusyNamingIt() async throws {
        try await withServer(handler: TestHandler(), configure: { $0.connectionLimits.maxConnections = 1 }) { path, _ in
            try await withClient(path) { first in
                try await first.send(WireRequest(id: 1, op: "ping"))
                #expect(try await first.readObject()?["ok"] == true)
                try await withClient(path) { second in
                    // A client that sends at once still reads the one busy line, then the end.
                    try? await second.send(WireRequest(id: 2, op: "ping"))
                    let busy = try #require(try? await second.readObject())
                    #expect(busy["error"]?["code"] == "busy")
                    #expect(busy["error"]?["limit"] == "maxConnections")
                    #expect(busy["error"]?["value"] == 1)
                    #expect((try? await second.readLine()) ?? nil == nil)
                }
            }
        }
    }

    @Test func aLineThatDoesNotArriveInTimeIsAnsweredTimeoutAndClosed() async throws {
        let handler = TestHandler()
        try await withServer(
            handler: handler, configure: { $0.connectionLimits.requestLineTimeout = .milliseconds(300) }
        ) {
            path, _ in
            try await withClient(path) { client in
                let started = ContinuousClock.now
                try await client.send(#"{"id":1,"#)
                let answer = try #require(try await client.readObject())
                #expect(ContinuousClock.now - started >= .milliseconds(300))
                #expect(answer["id"] == .null)
                #expect(answer["ok"] == false)
                #expect(answer["error"]?["code"] == "timeout")
                #expect(answer["error"]?["limit"] == "requestLineTimeout")
                #expect(answer["error"]?["value"] == .double(0.3))
                #expect(try await client.readLine() == nil)
            }
        }
        // The half line never became a request.
        #expect(handler.records.withLock { $0.isEmpty })
    }

    @Test func aLineInPiecesWithinTheLimitIsAnswered() async throws {
        try await withServer(
            handler: TestHandler(), configure: { $0.connectionLimits.requestLineTimeout = .seconds(5) }
        ) {
            path, _ in
            try await withClient(path) { client in
                for id in 1...3 {
                    try await client.send(#"{"id":\#(id),"#)
                    try await Task.sleep(for: .milliseconds(50))
                    try await client.send(#""op":"ping"}"# + "\n")
                    let answer = try #require(try await client.readObject())
                    #expect(answer["id"] == .int(Int64(id)))
                    #expect(answer["ok"] == true)
                }
            }
        }
    }
}
