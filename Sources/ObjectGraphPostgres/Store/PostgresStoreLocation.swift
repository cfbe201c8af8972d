import Foundation
import PostgresNIO

/// Where a PostgreSQL store lives: a server, a database and a schema, read from the store's URL.
///
/// Two forms are accepted:
///
/// - TCP: `postgres://user[:password]@host[:port]/database?schema=name`
/// - a Unix socket folder: `postgres:///database?host=/run/postgresql&schema=name` (the socket is
///   `<host>/.s.PGSQL.<port>`, port 5432 unless given with `port=`)
///
/// `user` defaults to the `user=` query item, then to `postgres`; `schema` defaults to `public`. The scheme may
/// also be `postgresql`.
public struct PostgresStoreLocation: Sendable, Equatable {
    /// The server's host name or address; `nil` for a Unix socket.
    public var host: String?
    /// The TCP port, or the number in the socket's name.
    public var port: Int
    /// The folder holding the server's Unix socket; `nil` for TCP.
    public var socketFolder: String?
    /// The role to connect as.
    public var user: String
    /// The password, if the URL has one (never printed).
    public var password: String?
    /// The database.
    public var database: String
    /// The schema holding the store's tables: one schema per store.
    public var schema: String

    /// Reads a location from a store URL; `nil` when the URL is not a PostgreSQL URL or names no database.
    public init?(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else { return nil }
        let items = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { _, last in last })
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else { return nil }
        self.database = database
        schema = items["schema"].flatMap { $0.isEmpty ? nil : $0 } ?? "public"
        user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? items["user"] ?? "postgres"
        password = components.password ?? items["password"]
        port = components.port ?? items["port"].flatMap(Int.init) ?? 5432
        if let folder = items["host"], folder.hasPrefix("/") {
            socketFolder = folder
            host = nil
        } else if let host = components.host, !host.isEmpty {
            self.host = host
            socketFolder = nil
        } else {
            host = nil
            socketFolder = "/run/postgresql"
        }
    }

    /// The location as a URL without its password, for messages and logs.
    public var displayString: String {
        let server = socketFolder.map { "?host=\($0)&" } ?? "?"
        let authority = host.map { "\(user)@\($0):\(port)" } ?? ""
        return "postgres://\(authority)/\(database)\(server)schema=\(schema)"
    }

    /// The PostgresNIO configuration of a connection to the location.
    var configuration: PostgresConnection.Configuration {
        if let socketFolder {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user,
                password: password, database: database)
        }
        return PostgresConnection.Configuration(
            host: host ?? "localhost", port: port, username: user,
            password: password, database: database, tls: .disable)
    }
}
