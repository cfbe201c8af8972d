/// Why ``WireServer`` could not start.
///
/// Shaped like NIO's `FileSystemError`: a stable ``code``, a message that says how to fix it, the socket path, and
/// the underlying cause. Equality compares the code only.
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case alreadyRunning = "already running"
            case invalidSocketPath = "invalid socket path"
            case notASocket = "not a socket"
            case bindFailed = "bind failed"
            case socketActivationFailed = "socket activation failed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        public var description: String { base.rawValue }

        /// Another live instance answers on the socket path.
        public static let alreadyRunning = Code(.alreadyRunning)
        /// The path is too long for a Unix socket (107 bytes) or its folder cannot be created.
        public static let invalidSocketPath = Code(.invalidSocketPath)
        /// Something other than a socket exists at the path; the server does not remove it.
        public static let notASocket = Code(.notASocket)
        /// Binding or listening failed.
        public static let bindFailed = Code(.bindFailed)
        /// The inherited descriptor is not a usable listening stream socket.
        public static let socketActivationFailed = Code(.socketActivationFailed)
    }

    public var code: Code
    public var message: String
    /// The socket path involved, if any.
    public var path: String?
    public var cause: (any Error & Sendable)?

    public init(code: Code, message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    public static func == (lhs: ServerError, rhs: ServerError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (\(cause))" }
        return text
    }
}
