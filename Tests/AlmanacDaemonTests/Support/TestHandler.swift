import AlmanacDaemon
import AlmanacWire
import NIOPosix
import Synchronization

/// A trivial handler: `ping` (answered on the event loop when the server may), `echo` (returns its fields), `sleep`
/// (`ms`), `hold` (runs until the test calls ``releaseHolds()``), `whoami` (peer credentials), `fail` (throws a
/// non-wire error), `insert` (pretends to insert), `subscribe`, `where` (whether it runs on an event loop), and
/// events pushed by the test.
final class TestHandler: RequestHandler {
    private let eventContinuations = Mutex<[AsyncStream<WireEvent>.Continuation]>([])
    let started: AsyncStream<String>
    private let startedContinuation: AsyncStream<String>.Continuation
    let records = Mutex<[RequestRecord]>([])
    /// Whether ``releaseHolds()`` was called, and the `hold` requests waiting for it.
    private let holds = Mutex<(released: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    init() {
        (started, startedContinuation) = AsyncStream<String>.makeStream()
    }

    struct Boom: Error {}

    func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> JSONObject {
        startedContinuation.yield(request.op)
        switch request.op {
        case "ping":
            return ["immediate": false]
        case "echo":
            return request.fields
        case "sleep":
            let milliseconds = request.fields["ms"]?.intValue ?? 100
            try await Task.sleep(for: .milliseconds(milliseconds))
            return ["slept": .int(milliseconds)]
        case "hold":
            await withCheckedContinuation { continuation in
                let releasedAlready = holds.withLock { holds in
                    if !holds.released { holds.waiting.append(continuation) }
                    return holds.released
                }
                if releasedAlready { continuation.resume() }
            }
            return ["held": true]
        case "whoami":
            return ["uid": .int(Int64(peer.uid)), "gid": .int(Int64(peer.gid)), "pid": .int(Int64(peer.pid))]
        case "fail":
            throw Boom()
        case "insert":
            return ["uri": "x-almanac://test/Favorite/p1", "store": "test"]
        case "subscribe":
            return WireResponse.Subscribed().json
        case "missing":
            throw WireError(code: .notFound, message: "no such object")
        case "where":
            // Where the request runs, before, during and after work on a store thread.
            let before = MultiThreadedEventLoopGroup.currentEventLoop != nil
            let during = try await StoreThreadPool(threadCount: 1).run {
                MultiThreadedEventLoopGroup.currentEventLoop != nil
            }
            let after = MultiThreadedEventLoopGroup.currentEventLoop != nil
            return [
                "onEventLoop": .bool(before), "storeWorkOnEventLoop": .bool(during), "backOnEventLoop": .bool(after),
            ]
        default:
            throw WireError.unknownOp(request.op)
        }
    }

    func immediateAnswer(to request: WireRequest) -> JSONObject? {
        request.op == "ping" ? ["immediate": true] : nil
    }

    func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        let (stream, continuation) = AsyncStream<WireEvent>.makeStream()
        eventContinuations.withLock { $0.append(continuation) }
        return stream
    }

    func requestCompleted(_ record: RequestRecord) {
        records.withLock { $0.append(record) }
    }

    /// Sends an event to every subscriber; returns how many there were.
    @discardableResult
    func publish(_ event: WireEvent) -> Int {
        let continuations = eventContinuations.withLock { $0 }
        for continuation in continuations { continuation.yield(event) }
        return continuations.count
    }

    var subscriberCount: Int { eventContinuations.withLock { $0.count } }

    /// Ends every `hold` request, running or still to come.
    func releaseHolds() {
        let waiting = holds.withLock { holds in
            holds.released = true
            defer { holds.waiting = [] }
            return holds.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
