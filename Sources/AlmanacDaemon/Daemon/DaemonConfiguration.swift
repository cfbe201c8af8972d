import AlmanacWire
import Foundation

/// Everything the daemon needs to start, with the defaults `swift run almanacd` uses.
public struct DaemonConfiguration: Sendable {
    /// The folders watched for schedule files.
    public var watchFolders: [URL]
    /// Where the daemon keeps its own data (the personal store, the configuration file).
    public var stateFolder: URL
    /// The Unix socket clients connect to.
    public var socketPath: String
    /// An Xcode model file to use instead of the compiled-in schedule model.
    public var modelURL: URL?
    /// Where the personal configuration lives when it is shared: a PostgreSQL URL (`--personal-store`,
    /// `"personalStore"` in `almanacd.json`) such as `postgres:///almanac?host=/run/postgresql&schema=personal`,
    /// shared by every daemon given the same URL. `nil` (the default) keeps `personal.sqlite` in the state folder.
    public var personalStoreURL: URL?
    /// Whether Core Data stores dropped into the folders are attached read-only.
    public var readOnlyInbox = false
    /// Routing rules from the configuration file: entity name -> store file name (or path).
    public var routingRules: [String: String] = [:]
    /// The largest schedule file attached, in bytes.
    public var maximumFileSize = 64 * 1024 * 1024
    /// A group whose members may write (insert, update, delete) besides the daemon's own user and root.
    public var writerGroupID: UInt32?
    /// The most objects one `fetch` or `template` reply holds (`maximumReplyObjects` in `almanacd.json`); larger
    /// requests are refused with `too_large` and a hint to page, so one reply's memory stays bounded. Default
    /// `QueryEngine.defaultMaximumReplyObjects` (50,000).
    public var maximumReplyObjects = QueryEngine.defaultMaximumReplyObjects
    /// Per-file reader settings (`files`): zone, conference name and day change by glob on the file name, in order.
    public var fileSettings: [FileSettings] = []
    /// Connections in all and per user, and the request-line and idle timeouts (`maxConnections`,
    /// `maxConnectionsPerUser`, `maxConnectionsByUser`, `requestLineTimeout`, `idleTimeout`). Read at start only;
    /// ``Daemon`` fits them to the open-file limit.
    public var connectionLimits = ConnectionLimits()
    /// How many NIO event loops (threads) serve the socket (`eventLoops` in `almanacd.json`, `--event-loops`); `nil`:
    /// one per core, NIO's shared group. Store work runs on the store threads either way; the loops read requests,
    /// answer from the reply cache and write replies. On a machine whose clients run beside the daemon, one loop
    /// answers small requests faster (fewer wake-ups of a second thread competing with the clients for the cores),
    /// while several answer uncached fetches faster (2 cores, 8 local clients: pings 96k/s with one loop and 83k/s
    /// with two, limit-50 fetches missing the reply cache 14k/s and 20k/s). Read at start only.
    public var eventLoopCount: Int?

    /// Creates a configuration.
    public init(watchFolders: [URL], stateFolder: URL, socketPath: String, modelURL: URL? = nil) {
        self.watchFolders = watchFolders
        self.stateFolder = stateFolder
        self.socketPath = socketPath
        self.modelURL = modelURL
    }

    /// The defaults for an environment and working directory:
    /// - watched folder: `Data/schedules` in a checkout (the working directory has one), `$STATE_DIRECTORY/inbox`
    ///   under systemd, else `$XDG_STATE_HOME/almanac/inbox`;
    /// - state folder: `./.almanac` in a checkout, `$STATE_DIRECTORY` under systemd, else `$XDG_STATE_HOME/almanac`
    ///   (`~/.local/state/almanac`);
    /// - socket: `./.almanac/almanac.sock` in a checkout, `$RUNTIME_DIRECTORY/almanac.sock` under systemd, else
    ///   `$XDG_RUNTIME_DIR/almanac/almanac.sock`, else the state folder's `almanac.sock`.
    public static func defaults(environment: [String: String] = ProcessInfo.processInfo.environment,
                                workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        -> DaemonConfiguration
    {
        let checkout = workingDirectory.appendingPathComponent("Data/schedules")
        let isCheckout = FileManager.default.fileExists(atPath: checkout.path)
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: NSHomeDirectory())
        let xdgState = environment["XDG_STATE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? home.appendingPathComponent(".local/state")
        let state: URL
        let watch: URL
        if isCheckout {
            state = workingDirectory.appendingPathComponent(".almanac")
            watch = checkout
        } else if let directory = environment["STATE_DIRECTORY"]?.split(separator: ":").first {
            state = URL(fileURLWithPath: String(directory))
            watch = state.appendingPathComponent("inbox")
        } else {
            state = xdgState.appendingPathComponent("almanac")
            watch = state.appendingPathComponent("inbox")
        }
        let socket: String
        if isCheckout {
            socket = state.appendingPathComponent("almanac.sock").path
        } else if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first {
            socket = String(runtime) + "/almanac.sock"
        } else if let runtime = environment["XDG_RUNTIME_DIR"] {
            socket = runtime + "/almanac/almanac.sock"
        } else {
            socket = state.appendingPathComponent("almanac.sock").path
        }
        return DaemonConfiguration(watchFolders: [watch.standardizedFileURL], stateFolder: state.standardizedFileURL,
                                   socketPath: socket)
    }

    /// The event loop counts ``eventLoopCount`` accepts.
    public static let eventLoopRange = 1...256

    /// `count` when it is a count ``eventLoopRange`` accepts; else an error naming `setting` (nil: not a whole number).
    public static func checkedEventLoopCount(_ count: Int?, setting: String) throws -> Int {
        guard let count, eventLoopRange.contains(count) else {
            throw ConfigurationError(
                message: "\(setting) must be a whole number from \(eventLoopRange.lowerBound) to "
                    + "\(eventLoopRange.upperBound)")
        }
        return count
    }

    /// The configuration file in the state folder (`almanacd.json`), if present.
    public var configurationFile: URL { stateFolder.appendingPathComponent("almanacd.json") }

    /// Reads `almanacd.json`: `{"routing": {"Entity": "store-file"}, "readOnlyInbox": bool, "personalStore": URL,
    /// "maximumFileSize": bytes, "maximumReplyObjects": count, "writerGroup": gid,
    /// "files": {"glob": {"timeZone", "acronym", "dayChange"}},
    /// "maxConnections": 8192, "maxConnectionsPerUser": 1024, "maxConnectionsByUser": {"uid or name": count},
    /// "requestLineTimeout": seconds, "idleTimeout": seconds, "eventLoops": count}`.
    /// A missing file changes nothing; a file without `files` clears the per-file settings, and connection limits it
    /// leaves out are the defaults.
    ///
    /// - Throws: a message naming the problem when the file exists but is not valid.
    public mutating func loadConfigurationFile() throws {
        guard let data = FileManager.default.contents(atPath: configurationFile.path) else { return }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ConfigurationError(message: "\(configurationFile.path) is not a JSON object")
        }
        if let routing = object["routing"] {
            guard let rules = routing as? [String: String] else {
                throw ConfigurationError(message: "\"routing\" in \(configurationFile.path) must map entity names "
                                            + "to store file names")
            }
            routingRules = rules
        }
        if let value = object["readOnlyInbox"] as? Bool { readOnlyInbox = value }
        if let value = object["personalStore"] {
            let url = (value as? String).flatMap(URL.init(string:))
            guard let url, url.scheme?.hasPrefix("postgres") == true else {
                throw ConfigurationError(
                    message: "\"personalStore\" in \(configurationFile.path) must be a PostgreSQL URL such as "
                        + "postgres:///almanac?host=/run/postgresql&schema=personal")
            }
            personalStoreURL = url
        }
        if let value = object["maximumFileSize"] as? Int, value > 0 { maximumFileSize = value }
        if let value = object["maximumReplyObjects"] as? Int, value > 0 { maximumReplyObjects = value }
        if let value = object["writerGroup"] as? Int, value >= 0 { writerGroupID = UInt32(value) }
        // Parsed again for `files` with the wire's parser, which keeps the order of members: the first glob wins.
        let ordered = try? JSONValue(parsing: [UInt8](data), maxDepth: 16)
        if case .object(let members)? = ordered, let files = members["files"] {
            fileSettings = try FileSettings.list(from: files, file: configurationFile.path)
        } else {
            fileSettings = []
        }
        connectionLimits = try ConnectionLimits(
            configuration: ordered?.objectValue ?? [:], file: configurationFile.path)
        // Read from the wire's parser, which tells a number from `true` (Foundation's hands both over as NSNumber).
        if case .object(let members)? = ordered, let value = members["eventLoops"] {
            let count: Int? =
                switch value {
                case .int(let number): Int(exactly: number)
                case .double(let number): Int(exactly: number)
                default: nil
                }
            eventLoopCount = try Self.checkedEventLoopCount(
                count, setting: "\"eventLoops\" in \(configurationFile.path)")
        }
    }
}

/// A configuration that cannot be used.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    public var description: String { message }
}
