import AlmanacWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking client for the daemon's socket: one request at a time, answers read line by line.
final class WireClient {
    let path: String
    private let fd: CInt
    private var framer = LineFramer(maxLineLength: 256 << 20)
    private var pendingLines: [[UInt8]] = []
    private var isAtEOF = false
    private var nextID: Int64 = 1

    /// Connects to the socket at `path`.
    ///
    /// - Parameter timeout: How long to wait for each answer (nil: forever, for `watch`).
    init(path: String, timeout: Duration? = .seconds(60)) throws(ClientError) {
        self.path = path
        let maxLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        guard path.utf8.count <= maxLength else {
            throw .cannotConnect(path: path, reason: "path longer than \(maxLength) bytes")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .cannotConnect(path: path, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotConnect(path: path, reason: reason)
        }
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
        #if canImport(Darwin)
        var one: CInt = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<CInt>.size))
        #endif
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Sends a command and returns the body of the successful answer.
    ///
    /// - Throws: ``ClientError/daemon(_:)`` for an error answer; ``ClientError/protocolFailure(_:)`` when the
    ///   connection breaks.
    func send(_ command: WireCommand) throws(ClientError) -> JSONObject {
        try send(command.request(id: .int(nextRequestID())))
    }

    /// Sends a raw request and returns the body of the successful answer.
    func send(_ request: WireRequest) throws(ClientError) -> JSONObject {
        try write(request.encodedLine())
        while true {
            guard let message = try readMessage() else {
                throw .protocolFailure("the daemon closed the connection without answering")
            }
            switch message {
            case .event:
                continue
            case .response(.success(_, let body)):
                return body
            case .response(.failure(_, let error)):
                throw .daemon(error)
            }
        }
    }

    /// Sends a command and decodes the answer's body.
    func send<Body: WireMessageBody>(_ command: WireCommand, as type: Body.Type) throws(ClientError) -> Body {
        let body = try send(command)
        do {
            return try Body(json: body)
        } catch {
            throw .protocolFailure("unexpected answer to \(command.operation.rawValue): \(error.message)")
        }
    }

    /// The next message from the daemon, or nil when it closed the connection.
    func readMessage() throws(ClientError) -> WireMessage? {
        guard let line = try readLine() else { return nil }
        do {
            return try WireMessage(line: line)
        } catch {
            throw .protocolFailure("unreadable message from the daemon: \(error.message)")
        }
    }

    private func nextRequestID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    private func write(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Darwin)
                Darwin.send(fd, buffer.baseAddress, buffer.count, 0)
                #else
                Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .protocolFailure("cannot send to the daemon: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    private func readLine() throws(ClientError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while pendingLines.isEmpty {
            if isAtEOF { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw .protocolFailure("no answer from the daemon in time")
                }
                throw .protocolFailure("cannot read from the daemon: \(String(cString: strerror(errno)))")
            }
            let actions = count == 0 ? framer.finish() : framer.append(buffer[..<count])
            if count == 0 { isAtEOF = true }
            for action in actions {
                switch action {
                case .line(let line): pendingLines.append(line)
                case .tooLarge: throw .protocolFailure("answer too large")
                }
            }
        }
        return pendingLines.removeFirst()
    }
}
