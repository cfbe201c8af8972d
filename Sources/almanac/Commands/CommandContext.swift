import AlmanacWire
import Foundation

/// What a command needs at run time: the connection, the clock, the terminal, the printer and the served
/// conferences.
final class CommandContext {
    let options: ClientOptions
    let environment: [String: String]
    let terminal: Terminal
    let display: TimeDisplay
    /// What the user typed after `--conference` (a name, title or file name), if anything.
    let conferenceArgument: String?
    private var connection: WireClient?
    var cachedCatalog: ConferenceCatalog?
    var cachedConferenceName: String??

    /// The current time, or the `--at` time. `--at` without an offset is read in the zone of the command's
    /// conference (``conferenceArgument``, else the one zone all served conferences share), else in the machine's.
    lazy var now: Date = {
        guard let at = options.at else { return Date() }
        if WireDateInput.hasOffset(at) { return WireDateInput.parse(at) ?? Date() }
        let name = try? conferenceName()
        let conferenceZone = (try? catalog())?.sharedZone(conference: name ?? nil)
        let zone = conferenceZone ?? display.fallback
        let date = WireDateInput.parse(at, in: zone) ?? Date()
        let whose: String
        if conferenceZone != nil, let name = name ?? nil {
            whose = "the zone of \(name)"
        } else if conferenceZone != nil {
            whose = "the zone of every served conference"
        } else {
            whose = "this machine's zone"
        }
        let note =
            "almanac: --at \(at) read in \(zone.identifier) (\(whose)) as "
            + TimeDisplay.clock(date, in: zone) + " " + TimeDisplay.abbreviation(of: zone, at: date)
            + "; give an offset (+01:00) to choose\n"
        FileHandle.standardError.write(Data(note.utf8))
        return date
    }()

    init(
        options: ClientOptions,
        conference: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.options = options
        self.environment = environment
        conferenceArgument = conference
        terminal = Terminal.current(environment: environment)
        if options.utc {
            display = TimeDisplay(zone: .fixed(ConferenceZone.utc))
        } else if let tz = options.tz, let zone = ConferenceZone.timeZone(named: tz) {
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

    /// The width output is fitted to: `--width`, else the terminal's on a terminal, else none (output to a file or
    /// a pipe is never cut).
    var width: Int? {
        options.width ?? (terminal.isTerminal ? terminal.width : nil)
    }

    var printer: ListingPrinter {
        ListingPrinter(
            format: options.format,
            width: width,
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
}
