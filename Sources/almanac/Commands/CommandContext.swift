import AlmanacWire
import Foundation

/// What a command needs at run time: the connection, the clock, the terminal and the printer.
final class CommandContext {
    let options: ClientOptions
    let environment: [String: String]
    let terminal: Terminal
    let now: Date
    let display: TimeDisplay
    private var connection: WireClient?

    init(options: ClientOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.options = options
        self.environment = environment
        terminal = Terminal.current(environment: environment)
        now = options.at.flatMap(WireDateInput.parse) ?? Date()
        if options.utc {
            display = TimeDisplay(zone: .fixed(TimeZone(identifier: "UTC")!))
        } else if let tz = options.tz, let zone = TimeZone(identifier: tz) {
            display = TimeDisplay(zone: .fixed(zone))
        } else {
            display = TimeDisplay(zone: .conference)
        }
    }

    var socketPath: String {
        SocketPathResolver(environment: environment, fileExists: { FileManager.default.fileExists(atPath: $0) })
            .resolve(option: options.socket)
    }

    /// The connection, opened on first use.
    func client(timeout: Duration? = .seconds(60)) throws(ClientError) -> WireClient {
        if let connection { return connection }
        let connection = try WireClient(path: socketPath, timeout: timeout)
        self.connection = connection
        return connection
    }

    func send(_ command: WireCommand) throws(ClientError) -> JSONObject {
        try client().send(command)
    }

    func send<Body: WireMessageBody>(_ command: WireCommand, as type: Body.Type) throws(ClientError) -> Body {
        try client().send(command, as: type)
    }

    // MARK: Output

    var printer: ListingPrinter {
        ListingPrinter(
            format: options.format,
            width: terminal.isTerminal || environment["COLUMNS"] != nil ? terminal.width : nil,
            colors: terminal.colors && options.format == .table
        )
    }

    func print(_ listing: Listing) {
        write(printer.render(listing))
    }

    /// Prints an answer's body: as JSON for scripts, or as `key  value` lines for people.
    func print(body: JSONObject) {
        switch options.format {
        case .json, .ndjson:
            write(JSONValue.object(body).encodedString() + "\n")
        case .table, .csv, .tsv:
            let listing = Listing(
                columns: [.init(header: "KEY", key: "key"), .init(header: "VALUE", key: "value", isFlexible: true)],
                rows: body.members.map { [.init($0.key), .init(ObjectListing.raw($0.value))] },
                objects: [.object(body)]
            )
            print(listing)
        }
    }

    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    // MARK: Schedule queries

    /// Sessions matching `predicate` (with `conference.acronym == $CONFERENCE` added when given), by start time.
    func sessions(
        predicate: String?,
        variables: JSONObject = [:],
        conference: String? = nil,
        limit: Int? = nil
    ) throws(ClientError) -> [SessionSummary] {
        var clauses: [String] = []
        var variables = variables
        if let predicate { clauses.append("(\(predicate))") }
        if let conference {
            clauses.append("conference.acronym == $CONFERENCE")
            variables["CONFERENCE"] = .string(conference)
        }
        let fetch = WireRequest.Fetch(
            entity: "Session",
            predicate: clauses.isEmpty ? nil : clauses.joined(separator: " AND "),
            variables: variables,
            sort: [.init(key: "start"), .init(key: "room.name")],
            limit: limit,
            properties: SessionSummary.properties
        )
        return try send(.fetch(fetch), as: WireResponse.Fetch.self).objects.map(SessionSummary.init)
    }

    /// The favourites (Favorite objects).
    func favoriteObjects() throws(ClientError) -> [WireObject] {
        try send(.fetch(.init(entity: "Favorite", sort: [.init(key: "createdAt")])), as: WireResponse.Fetch.self).objects
    }

    /// The GUIDs of favourite sessions.
    func favoriteGUIDs() throws(ClientError) -> Set<String> {
        Set(try favoriteObjects().compactMap { $0.values["sessionGUID"]?.stringValue })
    }

    /// The sessions with these GUIDs.
    func sessions(guids: [String], conference: String? = nil) throws(ClientError) -> [SessionSummary] {
        guard !guids.isEmpty else { return [] }
        return try sessions(predicate: "guid IN $GUIDS", variables: ["GUIDS": .array(guids.map(JSONValue.string))], conference: conference)
    }

    /// The zone for day boundaries: the fixed display zone, else the conferences' zone when they share one, else
    /// the machine's.
    func dayZone(conference: String?) throws(ClientError) -> TimeZone {
        if case .fixed(let zone) = display.zone { return zone }
        var fetch = WireRequest.Fetch(entity: "Conference", properties: ["acronym", "timeZone"])
        if let conference {
            fetch.predicate = "acronym == $CONFERENCE"
            fetch.variables = ["CONFERENCE": .string(conference)]
        }
        let zones = Set(
            try send(.fetch(fetch), as: WireResponse.Fetch.self).objects.compactMap { $0.values["timeZone"]?.stringValue }
        )
        if zones.count == 1, let identifier = zones.first, let zone = TimeZone(identifier: identifier) { return zone }
        return display.fallback
    }

    /// A single session by GUID or URI.
    func session(named reference: String) throws(ClientError) -> SessionSummary {
        if reference.contains("://") {
            let object = try send(.get(.init(uri: reference)), as: WireResponse.Get.self).object
            guard object.entity == "Session" else { throw .usage("\(reference) is a \(object.entity), not a Session") }
            let summary = SessionSummary(object)
            return try sessions(guids: [summary.guid]).first ?? summary
        }
        let found = try sessions(predicate: "guid == $GUID", variables: ["GUID": .string(reference)])
        guard let session = found.first else { throw .notFound("no session with guid \(reference)") }
        return session
    }
}
