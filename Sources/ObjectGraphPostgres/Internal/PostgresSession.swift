import Foundation
import Logging
import NIOCore
import NIOPosix
import ObjectGraph
import PostgresNIO

/// The event loop of every PostgreSQL store in the process.
///
/// The store protocol is synchronous (the coordinator calls a store from the thread of the context that asked)
/// and PostgresNIO is asynchronous. The stores run PostgresNIO on this group of their own and wait for its futures
/// from the calling thread; a wait on an event-loop thread would deadlock (NIO traps it), and the coordinator never
/// runs on one: the daemon's NIO threads hand requests to its own request threads first. The group lives as long
/// as the process.
enum PostgresEventLoop {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
}

/// One connection to the server, used synchronously by one store (the coordinator serializes the store's calls).
///
/// A connection that closed (the server restarted, the network failed) is re-opened by the next call; a call
/// that fails on a broken connection throws, and nothing it started is committed.
final class PostgresSession: @unchecked Sendable {  // the coordinator serializes every call of its store
    let location: PostgresStoreLocation
    private var connection: PostgresConnection?
    private var nextConnectionID = 1
    /// Whether a transaction is open on the connection.
    private(set) var isInTransaction = false
    private let logger = Logger(label: "ObjectGraphPostgres", factory: { _ in SwiftLogNoOpLogHandler() })

    init(location: PostgresStoreLocation) {
        self.location = location
    }

    /// Closes the connection of a store dropped without being removed from its coordinator; the close completes
    /// on the event loop (the connection stays alive until then), without waiting here.
    deinit {
        guard let connection, !connection.isClosed else { return }
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Whether the connection is open (false before the first call and after the server closed it).
    var isConnected: Bool { connection.map { !$0.isClosed } ?? false }

    /// The open connection, connecting (and selecting the store's schema) first when there is none.
    private func open() throws -> PostgresConnection {
        // Waiting for the network on an event-loop thread would stall (or deadlock) that loop: refuse instead.
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else { throw PostgresSessionError.onEventLoop }
        if let connection, !connection.isClosed { return connection }
        if connection != nil, isInTransaction {
            // The transaction died with its connection: say so instead of running the rest outside it.
            isInTransaction = false
            connection = nil
            throw PostgresSessionError.connectionLost
        }
        connection = nil
        let made = try PostgresConnection.connect(
            on: PostgresEventLoop.group.next(),
            configuration: location.configuration,
            id: nextConnectionID, logger: logger
        ).wait()
        nextConnectionID += 1
        // Every connection reads and writes the store's schema (set again after a reconnection).
        let schema = PostgresQuery(unsafeSQL: "SET search_path TO \(quoted(location.schema))")
        do {
            _ = try made.query(schema, logger: logger).wait()
        } catch {
            try? made.close().wait()
            throw error
        }
        connection = made
        return made
    }

    /// Runs one statement with `?` placeholders bound to `bindings`, and returns its rows.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [PostgresRow] {
        let connection = try open()
        var binds = PostgresBindings(capacity: bindings.count)
        for value in bindings {
            switch value {
            case .null: binds.appendNull()
            case .integer(let int): binds.append(int)
            case .real(let double): binds.append(double)
            case .text(let text): binds.append(text)
            case .blob(let data): try binds.append(data)
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
        return try connection.query(query, logger: logger).wait().rows
    }

    /// Runs statements without parameters, in order.
    func execute(_ statements: String...) throws {
        for statement in statements { try query(statement) }
    }

    /// `BEGIN`.
    func begin() throws {
        try query("BEGIN")
        isInTransaction = true
    }

    /// `COMMIT`; the transaction is over whether or not it succeeds.
    func commit() throws {
        defer { isInTransaction = false }
        try query("COMMIT")
    }

    /// `ROLLBACK`, ignoring failures (a lost connection rolled back already).
    func rollback() {
        guard isInTransaction else { return }
        isInTransaction = false
        if let connection, !connection.isClosed { _ = try? query("ROLLBACK") }
    }

    /// Runs `body` in a transaction of its own: committed when it returns, rolled back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try begin()
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Closes the connection.
    func close() {
        rollback()
        if let connection { try? connection.close().wait() }
        connection = nil
    }

    /// The SQL with its `?` placeholders numbered as PostgreSQL wants them (`$1`, `$2` …); question marks inside
    /// quoted identifiers and string literals are left alone.
    static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        // By UTF-8 bytes, not Characters: a save's multi-row statements carry tens of thousands of placeholders,
        // and ASCII bytes never occur inside a multi-byte scalar.
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count * 2 + 16)
        var number = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                result.append(byte)
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
                result.append(byte)
            } else if byte == UInt8(ascii: "?") {
                number += 1
                result.append(UInt8(ascii: "$"))
                result.append(contentsOf: String(number).utf8)
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

/// Failures of the session itself (the server's errors are PostgresNIO's `PSQLError`).
enum PostgresSessionError: Error {
    /// The connection closed in the middle of a transaction.
    case connectionLost
    /// The store was called on an event-loop thread, where it must not wait for the server.
    case onEventLoop
}

extension SQLValue {
    /// A cell of a result row as a stored value: integers (and Booleans) as integers, floating-point and numeric
    /// as reals, text as text, `bytea` as a blob.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int8, .int4, .int2: self = .integer(try cell.decode(Int64.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .float8, .float4, .numeric: self = .real(try cell.decode(Double.self))
        case .bytea: self = .blob(try cell.decode(Data.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}

extension PostgresRow {
    /// The cell of a column, by position.
    subscript(column index: Int) -> PostgresCell {
        PostgresRandomAccessRow(self)[index]
    }
}
