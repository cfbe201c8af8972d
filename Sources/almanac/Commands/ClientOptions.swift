import AlmanacWire
import ArgumentParser
import Foundation

/// Options every command takes.
struct ClientOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The daemon's socket (default: $ALMANAC_SOCKET, ./.almanac/almanac.sock, $XDG_RUNTIME_DIR/almanac/almanac.sock, /run/almanac/almanac.sock)."
    )
    var socket: String?

    @Option(name: .long, help: "Output format: table, json, ndjson, csv or tsv.")
    var format: OutputFormat = .table

    @Flag(name: .long, help: "Show times in UTC.")
    var utc = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Show times in this zone, e.g. Europe/Berlin or +01:00 (days stay the conference's).", valueName: "zone")
    )
    var tz: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Fit tables and the grid to this many columns. Without it, output to a terminal fits the terminal "
                + "(COLUMNS, else its size) and output to a file or pipe is never cut.",
            valueName: "columns")
    )
    var width: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Pretend the current time is this ISO 8601 time (for planning). Without an offset it is read in the "
                + "conference's zone when the command is about one conference (--conference, or the only zone "
                + "served), else in this machine's zone.",
            valueName: "time"
        )
    )
    var at: String?

    func validate() throws {
        if let width, width < 20 { throw ValidationError("--width must be at least 20 columns, not \(width)") }
        if utc, tz != nil { throw ValidationError("--utc and --tz cannot be combined") }
        if let tz, ConferenceZone.timeZone(named: tz) == nil { throw ValidationError("unknown time zone \(tz)") }
        if let at, WireDateInput.parse(at) == nil {
            throw ValidationError("--at needs an ISO 8601 time such as 2024-12-28T11:00+01:00, not \(at)")
        }
    }
}

/// Times the user types: ISO 8601 with an offset, or without one (then in `zone`, by default the machine's).
enum WireDateInput {
    static func parse(_ text: String, in zone: TimeZone = .current) -> Date? {
        if let date = WireDate.date(from: text) { return date }
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = zone
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm"] {
            parser.dateFormat = format
            if let date = parser.date(from: text) { return date }
        }
        return nil
    }

    /// Whether `text` carries its own offset (then the zone it is read in does not matter).
    static func hasOffset(_ text: String) -> Bool {
        WireDate.date(from: text) != nil
    }
}
