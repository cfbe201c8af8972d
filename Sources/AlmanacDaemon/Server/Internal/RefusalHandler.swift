import AlmanacWire
import NIOCore

/// The whole pipeline of a connection past a limit: once the connection is active, writes one error line (id
/// `null`), then closes it. Whatever the client sends meanwhile is dropped. Runs on the event loop alone, so a flood
/// of refused connections costs no task and never waits for one.
final class RefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let error: WireError

    init(error: WireError) {
        self.error = error
    }

    func channelActive(context: ChannelHandlerContext) {
        var line = context.channel.allocator.buffer(capacity: 256)
        WireResponse.encodeLine(id: .null, error: error, into: &line)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(line)).whenComplete { _ in channel.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
