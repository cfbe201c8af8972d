import AlmanacDaemon
import AlmanacWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A short socket path of its own for each test (sun_path holds 107 bytes).
func makeSocketPath() -> String {
    "/tmp/aw-\(UUID().uuidString.prefix(8).lowercased()).sock"
}

/// Runs a live server in a service group for the duration of `body`, then shuts it down gracefully.
func withServer<H: RequestHandler>(
    handler: H,
    path: String = makeSocketPath(),
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (String, ServiceGroup) async throws -> Void
) async throws {
    var configuration = ServerConfiguration(socketPath: path)
    configure(&configuration)
    try await withServer(handler: handler, configuration: configuration) { group in try await body(path, group) }
}

func withServer<H: RequestHandler>(
    handler: H,
    configuration: ServerConfiguration,
    _ body: (ServiceGroup) async throws -> Void
) async throws {
    let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
    let logger = Logger(label: "test.server")
    let server = WireServer(configuration: configuration, handler: handler, logger: logger) { _ in
        readyContinuation.yield()
    }
    let group = ServiceGroup(services: [server], logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        for await _ in ready { break }
        do {
            try await body(group)
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
    if case .path(let path) = configuration.listener {
        unlink(path)
    }
}

/// A line-oriented test client on NIO (never blocks a cooperative thread).
struct LineClient: ~Copyable {
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var framer = LineFramer(maxLineLength: 64 << 20)
    private var pending: [String] = []
    private var isAtEOF = false

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.iterator = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Sends raw text.
    func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends raw bytes.
    func send(bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    /// Sends one request line.
    func send(_ request: WireRequest) async throws {
        try await outbound.write(ByteBuffer(bytes: request.encodedLine()))
    }

    /// Shuts down the writing side (the server sees EOF).
    func finishWriting() {
        outbound.finish()
    }

    /// The next line, or nil at EOF.
    mutating func readLine() async throws -> String? {
        while pending.isEmpty {
            if isAtEOF { return nil }
            if let chunk = try await iterator.next() {
                pending += framer.append(chunk.readableBytesView).compactMap(Self.text)
            } else {
                isAtEOF = true
                pending += framer.finish().compactMap(Self.text)
            }
        }
        return pending.removeFirst()
    }

    /// The next line as a decoded message.
    mutating func readMessage() async throws -> WireMessage? {
        guard let line = try await readLine() else { return nil }
        return try WireMessage(line: Array(line.utf8))
    }

    /// The next line as a JSON object.
    mutating func readObject() async throws -> JSONObject? {
        guard let line = try await readLine() else { return nil }
        return try JSONValue(parsing: line).objectValue
    }

    private static func text(_ action: LineFramer.Action) -> String? {
        if case .line(let bytes) = action { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}

/// Connects to `path` and runs `body` with a line client; closes afterwards.
func withClient<T: Sendable>(
    _ path: String,
    _ body: (inout LineClient) async throws -> T
) async throws -> T {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.allowRemoteHalfClosure, value: true)
        .connect(unixDomainSocketPath: path) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init(isOutboundHalfClosureEnabled: true)
                )
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        var client = LineClient(inbound: inbound, outbound: outbound)
        return try await body(&client)
    }
}
