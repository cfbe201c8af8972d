import AlmanacWire
import Foundation
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Testing

@testable import AlmanacDaemon

@Suite(.timeLimit(.minutes(1)))
struct WireServerTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                var text = ""
                for id in 0..<20 {
                    let request = WireRequest(id: .int(id), op: "sleep", fields: ["ms": .int((20 - id) % 5 * 10)])
                    text += String(decoding: request.encodedLine(), as: UTF8.self)
                }
                try await client.send(text)
                for id in 0..<20 {
                    let object = try #require(try await client.readObject())
                    #expect(object["id"] == .int(id))
                    #expect(object["ok"] == true)
                }
            }
        }
    }

    /// A connection's requests run on its event loop (no thread of the cooperative pool woken for each), their store
    /// work on a store thread, and they come back to the loop after it.
    @Test func requestsRunOnTheEventLoopAndTheirStoreWorkOffIt() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                for id in 1...3 {
                    try await client.send(#"{"id":\#(id),"op":"where"}"# + "\n")
                    let answer = try #require(try await client.readObject())
                    #expect(answer["ok"] == true)
                    #expect(answer["onEventLoop"] == true)
                    #expect(answer["storeWorkOnEventLoop"] == false)
                    #expect(answer["backOnEventLoop"] == true)
                }
            }
        }
    }

    @Test func immediateAnswersWaitForEarlierRequests() async throws {
        let handler = TestHandler()
        let finalPings = Mutex(0)
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                // Pings behind a slow request in the same write: answered after it, by the connection's task.
                try await client.send(
                    #"{"id":1,"op":"sleep","ms":50}"# + "\n" + #"{"id":2,"op":"ping"}"# + "\n"
                        + #"{"id":3,"op":"ping"}"# + "\n" + #"{"id":4,"op":"sleep","ms":0}"# + "\n"
                        + #"{"id":5,"op":"ping"}"# + "\n"
                )
                var answers: [JSONObject] = []
                for _ in 1...5 { answers.append(try #require(try await client.readObject())) }
                #expect(answers.map { $0["id"] } == [1, 2, 3, 4, 5])
                #expect(answers.allSatisfy { $0["ok"] == true })
                #expect(answers.filter { $0["immediate"] == true }.isEmpty)

                // A ping in a later write while a request is still running waits for it too. The request runs until
                // the test ends it, well after the ping was sent (a 100 ms sleep was not always still running when
                // the ping arrived on a loaded machine under the thread sanitizer).
                try await client.send(#"{"id":"slow","op":"hold"}"# + "\n")
                var started = handler.started.makeAsyncIterator()
                while let op = await started.next(), op != "hold" {}
                try await client.send(#"{"id":"quick","op":"ping"}"# + "\n")
                try await Task.sleep(for: .milliseconds(500))
                handler.releaseHolds()
                let slow = try #require(try await client.readObject())
                let quick = try #require(try await client.readObject())
                #expect(slow["id"] == "slow")
                #expect(quick["id"] == "quick")
                #expect(quick["immediate"] == false)

                // Once everything is answered, a ping is answered on the event loop. (The task counts a chunk as
                // answered just after writing its answer, so a client quick enough may see a ping or two more go
                // through the task first.)
                var pings = 0
                var immediate = false
                while !immediate, pings < 50 {
                    pings += 1
                    try await client.send(WireRequest(id: .int(Int64(5 + pings)), op: "ping"))
                    let pong = try #require(try await client.readObject())
                    #expect(pong["id"] == .int(Int64(5 + pings)))
                    immediate = pong["immediate"] == true
                    if !immediate { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(immediate)
                finalPings.withLock { $0 = pings }
            }
        }
        // Every answer is counted, immediate ones too.
        #expect(handler.records.withLock { $0.count } == 7 + finalPings.withLock { $0 })
    }

    @Test func manyPingsInOneWriteAreAnsweredInOrder() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                var text = ""
                for id in 0..<200 {
                    // A non-immediate request now and then, so answers come from both paths.
                    let op = id % 50 == 25 ? "echo" : "ping"
                    text += String(decoding: WireRequest(id: .int(id), op: op).encodedLine(), as: UTF8.self)
                }
                try await client.send(text)
                // A ping split over two writes is answered too (by the connection's task, which holds its start).
                try await client.send(#"{"id":200,"#)
                try await Task.sleep(for: .milliseconds(20))
                try await client.send(#""op":"ping"}"# + "\n" + #"{"id":201,"op":"ping"}"# + "\n")
                var immediate = 0
                for id in 0...201 {
                    let object = try #require(try await client.readObject())
                    #expect(object["id"] == .int(id))
                    #expect(object["ok"] == true)
                    if object["immediate"] == true { immediate += 1 }
                }
                #expect(immediate > 0)
            }
        }
    }

    @Test func halfClosedClientGetsAllItsAnswers() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            try await withClient(path) { client in
                try await client.send(#"{"id":1,"op":"ping"}"# + "\n" + #"{"id":2,"op":"sleep","ms":50}"# + "\n")
                try await client.send(#"{"id":3,"op":"echo","x":"last line without newline"}"#)
                client.finishWriting()
                var ids: [JSONValue] = []
                while let object = try await client.readObject() { ids.append(object["id"] ?? .null) }
                #expect(ids == [1, 2, 3])
            }
        }
    }

    @Test func tooLargeLineIsAnsweredAndTheConnectionStaysUsable() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            try await withClient(path) { client in
                var bytes = Array(#"{"id":1,"op":"echo","pad":""#.utf8)
                bytes += [UInt8](repeating: UInt8(ascii: "x"), count: WireProtocol.defaultMaxLineLength)
                bytes += Array("\"}\n".utf8)
                try await client.send(bytes: bytes)
                try await client.send(WireRequest(id: 2, op: "ping"))
                let tooLarge = try #require(try await client.readObject())
                #expect(tooLarge["id"] == .null)
                #expect(tooLarge["ok"] == false)
                #expect(tooLarge["error"]?["code"] == "too_large")
                let pong = try #require(try await client.readObject())
                #expect(pong["id"] == 2)
                #expect(pong["ok"] == true)
            }
        }
    }

    @Test func malformedJSONIsABadRequestWithNullIdAndTheConnectionSurvives() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            try await withClient(path) { client in
                try await client.send("{oops\n[1,2]\n" + #"{"id":"x"}"# + "\n" + #"{"id":4,"op":"ping"}"# + "\n")
                let first = try #require(try await client.readObject())
                #expect(first["id"] == .null)
                #expect(first["error"]?["code"] == "bad_request")
                #expect(first["error"]?["offset"] == 1)
                let second = try #require(try await client.readObject())
                #expect(second["id"] == .null)
                #expect(second["error"]?["code"] == "bad_request")
                let third = try #require(try await client.readObject())
                #expect(third["id"] == "x")
                #expect(third["error"]?["code"] == "bad_request")
                #expect(third["error"]?["field"] == "op")
                let fourth = try #require(try await client.readObject())
                #expect(fourth["id"] == 4)
                #expect(fourth["ok"] == true)
            }
        }
    }

    @Test func handlerErrorsBecomeErrorResponses() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "missing"))
                try await client.send(WireRequest(id: 2, op: "fail"))
                try await client.send(WireRequest(id: 3, op: "dance"))
                #expect(try await client.readObject()?["error"]?["code"] == "not_found")
                #expect(try await client.readObject()?["error"]?["code"] == "internal")
                #expect(try await client.readObject()?["error"]?["code"] == "unknown_op")
            }
        }
        let codes = handler.records.withLock { $0.map { $0.errorCode?.rawValue } }
        #expect(codes == ["not_found", "internal", "unknown_op"])
    }

    @Test func connectionsBeyondTheLimitGetBusy() async throws {
        try await withServer(handler: TestHandler(), configure: { $0.connectionLimits.maxConnections = 1 }) { path, _ in
            try await withClient(path) { first in
                try await first.send(WireRequest(id: 1, op: "ping"))
                #expect(try await first.readObject()?["ok"] == true)
                try await withClient(path) { second in
                    let busy = try #require(try await second.readObject())
                    #expect(busy["id"] == .null)
                    #expect(busy["error"]?["code"] == "busy")
                    #expect(try await second.readLine() == nil)
                }
                try await first.send(WireRequest(id: 2, op: "ping"))
                #expect(try await first.readObject()?["id"] == 2)
            }
        }
    }

    @Test func idleConnectionsAreClosed() async throws {
        let idle = { (configuration: inout ServerConfiguration) in
            configuration.connectionLimits.idleTimeout = .milliseconds(200)
        }
        try await withServer(handler: TestHandler(), configure: idle) { path, _ in
            try await withClient(path) { client throws in
                // Timed from before the request: the idle time starts when the server answered, which a busy machine
                // may let the client read late.
                // The server may also have closed the connection before the ping arrived, if the machine kept the
                // client from sending it for 200 ms: then the connection was idle from the start, and closed for it.
                let started = ContinuousClock.now
                guard (try? await client.send(WireRequest(id: 1, op: "ping"))) != nil,
                    let answer = try? await client.readObject()
                else { return }
                #expect(answer["ok"] == true)
                #expect(try await client.readLine() == nil)
                #expect(ContinuousClock.now - started >= .milliseconds(200))
            }
        }
    }

    @Test func subscribedConnectionsAreNotClosedForIdleness() async throws {
        let handler = TestHandler()
        let idle = { (configuration: inout ServerConfiguration) in
            configuration.connectionLimits.idleTimeout = .milliseconds(100)
        }
        try await withServer(handler: handler, configure: idle) { path, _ in
            // A connection is idle from the moment it is accepted, so on a loaded machine the server may close it
            // before the client got to subscribe. That is the server doing its job; such attempts start over.
            var attempts = 0
            var subscribedInTime = false
            while !subscribedInTime {
                attempts += 1
                try #require(attempts <= 20, "the server closed every connection before it could subscribe")
                subscribedInTime = try await withClient(path) { client in
                    guard (try? await client.send(WireRequest(id: 1, op: "subscribe"))) != nil,
                        let subscribed = try? await client.readObject()
                    else { return false }
                    #expect(subscribed["subscribed"] == true)
                    try await assertSubscriptionOutlivesIdleness(&client, handler: handler)
                    return true
                }
            }
        }
    }

    private func assertSubscriptionOutlivesIdleness(_ client: inout LineClient, handler: TestHandler) async throws {
        try await Task.sleep(for: .milliseconds(400))
        #expect(handler.publish(WireEvent(kind: .storeAttached, fields: ["file": "a.xml"])) == 1)
        guard case .event(let event) = try await client.readMessage() else {
            Issue.record("expected an event")
            return
        }
        #expect(event.kind == .storeAttached)
        #expect(event.fields["file"] == "a.xml")
        try await client.send(WireRequest(id: 2, op: "ping"))
        #expect(try await client.readObject()?["id"] == 2)
    }

    @Test func slowRequestsGetTimeout() async throws {
        try await withServer(handler: TestHandler(), configure: { $0.requestTimeout = .milliseconds(200) }) { path, _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "sleep", fields: ["ms": 10_000]))
                try await client.send(WireRequest(id: 2, op: "ping"))
                let timeout = try #require(try await client.readObject())
                #expect(timeout["id"] == 1)
                #expect(timeout["error"]?["code"] == "timeout")
                #expect(try await client.readObject()?["id"] == 2)
            }
        }
    }

    @Test func gracefulShutdownFinishesTheInFlightRequest() async throws {
        let handler = TestHandler()
        try await withServer(handler: handler) { path, group in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "sleep", fields: ["ms": 300]))
                for await op in handler.started where op == "sleep" { break }
                await group.triggerGracefulShutdown()
                let answer = try #require(try await client.readObject())
                #expect(answer["id"] == 1)
                #expect(answer["slept"] == 300)
                #expect(try await client.readLine() == nil)
            }
        }
    }

    @Test func gracefulShutdownClosesIdleConnectionsAndRemovesTheSocket() async throws {
        let path = makeSocketPath()
        try await withServer(handler: TestHandler(), path: path) { path, group in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "ping"))
                #expect(try await client.readObject()?["ok"] == true)
                await group.triggerGracefulShutdown()
                #expect(try await client.readLine() == nil)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func secondServerOnTheSamePathRefusesToStart() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            let second = WireServer(configuration: ServerConfiguration(socketPath: path), handler: TestHandler())
            await #expect(throws: ServerError(code: .alreadyRunning, message: "")) { try await second.run() }
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "ping"))
                #expect(try await client.readObject()?["ok"] == true)
            }
        }
    }

    @Test func staleSocketFileIsReplaced() async throws {
        let path = makeSocketPath()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = SocketFile.withSocketAddress(path) { bind(fd, $0, $1) }
        #expect(bound == 0)
        close(fd)
        #expect(SocketFile.probe(path) == .stale)
        try await withServer(handler: TestHandler(), path: path) { path, _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "ping"))
                #expect(try await client.readObject()?["ok"] == true)
            }
        }
    }

    @Test func somethingElseAtThePathIsNotRemoved() async throws {
        let path = makeSocketPath()
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        defer { unlink(path) }
        let server = WireServer(configuration: ServerConfiguration(socketPath: path), handler: TestHandler())
        await #expect(throws: ServerError(code: .notASocket, message: "")) { try await server.run() }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }

    @Test func tooLongSocketPathIsRejected() async throws {
        let path = "/tmp/" + String(repeating: "p", count: 120) + ".sock"
        let server = WireServer(configuration: ServerConfiguration(socketPath: path), handler: TestHandler())
        await #expect(throws: ServerError(code: .invalidSocketPath, message: "")) { try await server.run() }
    }

    @Test func socketFileHasMode0660() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
        }
    }

    @Test func peerCredentialsAreThoseOfTheTestProcess() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "whoami"))
                let object = try #require(try await client.readObject())
                #expect(object["uid"] == .int(Int64(getuid())))
                #expect(object["gid"] == .int(Int64(getgid())))
                #expect(object["pid"] == .int(Int64(getpid())))
            }
        }
    }

    @Test func writesFromTheOwnerAreAllowed() async throws {
        try await withServer(handler: TestHandler()) { path, _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, operation: .insert, fields: ["entity": "Favorite"]))
                #expect(try await client.readObject()?["uri"] == "x-almanac://test/Favorite/p1")
            }
        }
    }

    @Test func adoptsAnInheritedListeningDescriptor() async throws {
        let path = makeSocketPath()
        defer { unlink(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(SocketFile.withSocketAddress(path) { bind(fd, $0, $1) } == 0)
        #expect(listen(fd, 16) == 0)
        try await withServer(handler: TestHandler(), configuration: ServerConfiguration(listener: .descriptor(fd))) { _ in
            try await withClient(path) { client in
                try await client.send(WireRequest(id: 1, op: "ping"))
                #expect(try await client.readObject()?["ok"] == true)
            }
        }
    }

    @Test func aDescriptorThatIsNotListeningIsRejected() async throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let server = WireServer(configuration: ServerConfiguration(listener: .descriptor(fd)), handler: TestHandler())
        await #expect(throws: ServerError(code: .socketActivationFailed, message: "")) { try await server.run() }
    }

    @Test func readinessIsReportedWithThePath() async throws {
        let path = makeSocketPath()
        let (ready, continuation) = AsyncStream<WireServer<TestHandler>.ReadyInfo>.makeStream()
        let server = WireServer(configuration: ServerConfiguration(socketPath: path), handler: TestHandler()) {
            continuation.yield($0)
        }
        let group = ServiceGroup(services: [server], logger: .init(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ready.makeAsyncIterator()
            let info = await iterator.next()
            #expect(info?.socketPath == path)
            #expect(SocketFile.probe(path) == .live)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(SocketFile.probe(path) == .absent)
    }
}
