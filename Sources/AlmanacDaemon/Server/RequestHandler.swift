import AlmanacWire

/// What the daemon plugs into ``WireServer``: it answers requests and provides subscription events.
///
/// The server owns framing, ordering, limits, deadlines and authorization; a handler only sees well-formed
/// requests from peers allowed to make them. Requests on one connection reach the handler one at a time, in order;
/// requests on different connections reach it concurrently.
public protocol RequestHandler: Sendable {
    /// The body of a successful answer: typed (the daemon's ``DaemonReply``) or a `JSONObject` of
    /// fields. The server writes it, after `id` and `ok`, straight into the outgoing buffer.
    associatedtype Reply: WireReplyBody

    /// Answers one request (the server decoded its line once, on the event loop).
    ///
    /// - Returns: The response's body (the server adds `id` and `ok`), e.g. a `WireResponse.Fetch`.
    /// - Throws: A `WireError`, sent to the client as it is. Any other error is logged and answered
    ///   with `internal`. The handler is cancelled when the request passes its deadline (`timeout`) or the server
    ///   stops; it should check for cancellation in long work.
    func handle(_ request: WireRequest, peer: PeerCredentials) async throws -> Reply

    /// The events for a connection whose `subscribe` request ``handle(_:peer:)`` answered successfully (asked once
    /// per connection); the server writes each as one line until the stream ends or the connection closes (then the
    /// server cancels its iteration).
    func subscribe(peer: PeerCredentials) async -> AsyncStream<WireEvent>

    /// The events for a connection whose `subscribe` request ``handle(_:peer:)`` answered successfully, given the
    /// request (whose fields may choose the events: the daemon's `fetch`). The default is ``subscribe(peer:)``.
    func subscribe(_ request: WireRequest, peer: PeerCredentials) async -> AsyncStream<WireEvent>

    /// The answer to a request that needs no peer check and can be given without waiting (`ping`, a reply kept
    /// from an identical earlier request), or nil (the default) to answer it with ``handle(_:peer:)``.
    ///
    /// Called on the connection's event loop, so it must return at once; the server asks only when every earlier
    /// request of the connection has been answered, so answers keep their order.
    func immediateAnswer(to request: WireRequest) -> Reply?

    /// Called after each answer, for statistics (default: does nothing). Called for answers the server gives
    /// itself too (`too_large`, `bad_request` for unreadable lines, `forbidden`, `timeout`).
    func requestCompleted(_ record: RequestRecord)
}

extension RequestHandler {
    public func subscribe(_ request: WireRequest, peer: PeerCredentials) async -> AsyncStream<WireEvent> {
        await subscribe(peer: peer)
    }

    public func immediateAnswer(to request: WireRequest) -> Reply? { nil }

    public func requestCompleted(_ record: RequestRecord) {}
}

/// A summary of one answered request, for statistics.
public struct RequestRecord: Sendable {
    /// The operation, or nil when the line could not be read.
    public var op: String?
    /// The error code of a failed answer, nil on success.
    public var errorCode: WireError.Code?
    /// Time from reading the line to having written the answer.
    public var duration: Duration
    /// Who asked.
    public var peer: PeerCredentials

    public init(op: String?, errorCode: WireError.Code?, duration: Duration, peer: PeerCredentials) {
        self.op = op
        self.errorCode = errorCode
        self.duration = duration
        self.peer = peer
    }
}
