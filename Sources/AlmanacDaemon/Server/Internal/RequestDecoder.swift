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
///
/// It also times request lines: when a read leaves a line unfinished, a timer on the event loop asks the
/// connection's ``ConnectionStateMachine`` whether the line is late (``ConnectionLimits/requestLineTimeout``), and
/// if so answers `timeout` (id `null`) and closes the connection.
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
    /// An answer here closed the connection (shutdown arrived, a line was late): the rest of the input is dropped.
    private var isClosing = false
    /// How long a request line may take once started, or nil.
    private let lineTimeout: Duration?
    /// The pending check of an unfinished line, if one is scheduled.
    private var lineTimer: Scheduled<Void>?

    init(handler: Handler, state: ConnectionState, maxLineLength: Int, lineTimeout: Duration?) {
        self.handler = handler
        self.state = state
        self.framer = LineFramer(maxLineLength: maxLineLength)
        self.lineTimeout = lineTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let received = buffer
        let wasInsideLine = framer.isInsideLine
        defer { timeLine(wasInside: wasInsideLine, received: received, context: context) }
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
        lineTimer?.cancel()
        lineTimer = nil
        finish(context: context)
        context.fireChannelInactive()
    }

    /// After a read: starts the clock of a line the read left unfinished (a line already unfinished before it keeps
    /// its clock unless the read ended it), or stops it when no line is unfinished.
    private func timeLine(wasInside: Bool, received: ByteBuffer, context: ChannelHandlerContext) {
        guard let lineTimeout, !isClosing else { return }
        guard framer.isInsideLine else {
            if wasInside { state.withLock { $0.partialLineEnded() } }
            return
        }
        guard !wasInside || received.readableBytesView.contains(0x0A) else { return }
        let now = ContinuousClock.now
        state.withLock { $0.partialLineStarted(at: now) }
        if lineTimer == nil { scheduleLineCheck(at: now + lineTimeout, context: context) }
    }

    private func scheduleLineCheck(at deadline: ContinuousClock.Instant, context: ChannelHandlerContext) {
        let delay = TimeAmount(max(.zero, deadline - .now))
        lineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            lineTimer = nil
            checkLine(context: context)
        }
    }

    /// The line timer fired: answers `timeout` and closes if the unfinished line is late.
    private func checkLine(context: ChannelHandlerContext) {
        guard let lineTimeout, !isClosing else { return }
        switch state.withLock({ $0.requestLineCheck(at: .now, timeout: lineTimeout) }) {
        case .stopWatching:
            return
        case .checkAgain(let deadline):
            scheduleLineCheck(at: deadline, context: context)
        case .close:
            isClosing = true
            needsFlush = false
            let seconds = lineTimeout / .milliseconds(1) / 1000
            var out = context.channel.allocator.buffer(capacity: 256)
            WireResponse.encodeLine(id: .null, error: .requestLineTimeout(seconds: seconds), into: &out)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in channel.close(promise: nil) }
        }
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
