import AlmanacWire
import NIOCore

/// Frames and decodes a connection's request lines on its event loop, once each; answers at once the requests the
/// handler can answer without waiting (``RequestHandler/immediateAnswer(to:)``: `ping`, kept replies) and hands
/// every other one, decoded, on to the connection's task.
///
/// A request answered here skips the hop to the connection's task and back (three thread switches), which is most
/// of what a `ping` costs. Answers stay in request order: a request is answered here only when every request handed
/// on before it has been answered (``ConnectionState/requestsAnswered`` has caught up); otherwise it is handed on
/// too, and the task answers it in turn.
final class RequestDecoder<Handler: RequestHandler>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = InboundRequest
    typealias OutboundOut = ByteBuffer

    private let handler: Handler
    private let state: ConnectionState
    private var framer: LineFramer
    /// Requests handed on to the connection's task.
    private var handedOn = 0
    /// Answers written here and not yet flushed (flushed once per read).
    private var needsFlush = false
    /// An answer here closed the connection (shutdown arrived): the rest of the input is dropped.
    private var isClosing = false

    init(handler: Handler, state: ConnectionState, maxLineLength: Int) {
        self.handler = handler
        self.state = state
        self.framer = LineFramer(maxLineLength: maxLineLength)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        // Every byte passes here, so idle time is counted here for the task too.
        state.withLock { $0.bytesReceived(at: .now) }
        // Whole lines are decoded where they lie in the buffer, without the framer's copy; a line's start left from
        // an earlier read, a long line and the rest of the buffer go through the framer.
        while !framer.hasPartialLine, let newline = buffer.readableBytesView.firstIndex(of: 0x0A),
            newline - buffer.readerIndex <= framer.maxLineLength
        {
            var line = buffer.readableBytesView[buffer.readerIndex..<newline]
            buffer.moveReaderIndex(to: newline + 1)
            if line.last == 0x0D { line = line.dropLast() }
            // Lines of only spaces and tabs are skipped, as the framer skips them.
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            deliver(InboundRequest(line: line), context: context)
        }
        guard buffer.readableBytes > 0 else { return }
        for action in framer.append(buffer.readableBytesView) {
            switch action {
            case .tooLarge: deliver(.tooLarge, context: context)
            case .line(let line): deliver(InboundRequest(line: line), context: context)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut down its writing side: a last line without a newline still counts.
        if let event = event as? ChannelEvent, event == .inputClosed { finish(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context)
        context.fireChannelInactive()
    }

    private func finish(context: ChannelHandlerContext) {
        for action in framer.finish() {
            switch action {
            case .tooLarge: deliver(.tooLarge, context: context)
            case .line(let line): deliver(InboundRequest(line: line), context: context)
            }
        }
        flushIfNeeded(context: context)
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
    }

    private func deliver(_ inbound: InboundRequest, context: ChannelHandlerContext) {
        guard !isClosing else { return }
        if case .request(let request) = inbound, answerAtOnce(request, context: context) { return }
        handedOn += 1
        context.fireChannelRead(wrapInboundOut(inbound))
    }

    /// Answers `request` here when the handler can and the connection may start a request now.
    private func answerAtOnce(_ request: WireRequest, context: ChannelHandlerContext) -> Bool {
        guard context.channel.isWritable, state.requestsAnswered.load(ordering: .acquiring) == handedOn,
            let reply = handler.immediateAnswer(to: request), state.withLock({ $0.immediateRequestStarted() })
        else { return false }
        let started = ContinuousClock.now
        var out = context.channel.allocator.buffer(capacity: reply.encodedByteCountEstimate)
        WireResponse.encodeLine(id: request.id, body: reply, into: &out)
        let next = state.withLock { $0.requestFinished(at: .now) }
        handler.requestCompleted(
            RequestRecord(op: request.op, errorCode: nil, duration: .now - started, peer: state.peer)
        )
        if next == .close {
            isClosing = true
            needsFlush = false
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in channel.close(promise: nil) }
            return true
        }
        context.write(wrapOutboundOut(out), promise: nil)
        needsFlush = true
        return true
    }
}

/// One request line as the connection's event loop decoded it, for the connection's task.
enum InboundRequest: Sendable {
    /// A well-formed request.
    case request(WireRequest)
    /// A line that is not a request: answered with the error, and with the line's `id` when it had one.
    case unreadable(id: JSONValue, error: WireError)
    /// A line over the length limit (its bytes were dropped).
    case tooLarge

    /// Decodes one line (without its newline).
    init(line: some Collection<UInt8>) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line)
        } catch {
            let failure = WireError(
                code: .badRequest, message: "request is not valid JSON: \(error.message)", details: error.details)
            self = .unreadable(id: .null, error: failure)
            return
        }
        do throws(WireError) {
            guard let object = value.objectValue else {
                throw WireError.badRequest("request must be a JSON object, not \(value.typeName)")
            }
            self = .request(try WireRequest(json: object))
        } catch {
            self = .unreadable(id: WireRequest.id(inRequestObject: value), error: error)
        }
    }
}
