import AlmanacWire
import NIOCore

/// Answers, on the connection's event loop, the requests the handler can answer at once
/// (``RequestHandler/immediateAnswer(to:)``: `ping`, kept replies), and hands every other byte on to the connection's task
/// unchanged.
///
/// A request answered here skips the hop to the connection's task and back (three thread switches), which is most
/// of what a `ping` costs. Answers stay in request order: a line is answered here only when every chunk handed on
/// before it has been answered completely (``ConnectionState/chunksAnswered`` has caught up) and no partial line
/// was handed on; otherwise it is handed on too, and the task answers it in turn. Only short lines are looked at,
/// and a line that is not an immediate request, or is not valid JSON, is handed on for the task to answer (or
/// reject) as usual.
final class ImmediateAnswerHandler<Handler: RequestHandler>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Lines longer than this are never immediate requests (`{"id": …, "op": "ping"}` is far shorter, and so is a
    /// typical sorted, paged `fetch`); longer ones are not parsed twice.
    static var longestImmediateLine: Int { 1024 }

    private let handler: Handler
    private let state: ConnectionState
    /// Chunks handed on to the connection's task.
    private var chunksHandedOn = 0
    /// Whether the last chunk handed on ended within a line (the task holds its start).
    private var isWithinLine = false

    init(handler: Handler, state: ConnectionState) {
        self.handler = handler
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        // Every byte passes here first, so idle time is counted here for the task too.
        state.withLock { $0.bytesReceived(at: .now) }
        while !isWithinLine, context.channel.isWritable,
            state.chunksAnswered.load(ordering: .acquiring) == chunksHandedOn,
            let newline = buffer.readableBytesView.firstIndex(of: 0x0A),
            newline - buffer.readerIndex <= Self.longestImmediateLine,
            let answer = immediateAnswer(buffer.readableBytesView[buffer.readerIndex..<newline])
        {
            buffer.moveReaderIndex(to: newline + 1)
            let started = ContinuousClock.now
            let line = answer.response.encodedLine()
            var out = context.channel.allocator.buffer(capacity: line.count)
            out.writeBytes(line)
            let next = state.withLock { $0.requestFinished(at: .now) }
            handler.requestCompleted(
                RequestRecord(op: answer.op, errorCode: nil, duration: .now - started, peer: state.peer)
            )
            if next == .close {
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        }
        guard buffer.readableBytes > 0 else { return }
        isWithinLine = buffer.readableBytesView.last != 0x0A
        chunksHandedOn += 1
        context.fireChannelRead(wrapInboundOut(buffer))
    }

    /// The answer to one line when it is an immediate request and the connection may start a request now.
    private func immediateAnswer(_ line: ByteBufferView) -> (op: String, response: WireResponse)? {
        // Cheap rejection first: most lines are not immediate requests.
        guard line.count >= 2, line.first == UInt8(ascii: "{") || line.first == UInt8(ascii: " ") else { return nil }
        guard let value = try? JSONValue(parsing: line), let object = value.objectValue,
            let request = try? WireRequest(json: object), let body = handler.immediateAnswer(to: request)
        else { return nil }
        guard state.withLock({ $0.immediateRequestStarted() }) else { return nil }
        return (request.op, .success(id: WireRequest.id(inRequestObject: value), body: body))
    }
}
