import AlmanacWire
import ArgumentParser
import Foundation

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the daemon's events as they happen (stores attached, replaced, failed; objects changed).",
        discussion: """
            Runs until interrupted or until the daemon closes the connection.

            EXAMPLES:
              almanac watch
              almanac watch --format ndjson | jq .event
            """
    )

    @OptionGroup var options: ClientOptions

    func run() throws {
        let context = CommandContext(options: options)
        let client = try context.client(timeout: nil)
        _ = try client.send(.subscribe())
        if options.format == .table { context.write("Watching \(client.path) (Ctrl-C to stop)\n") }
        while let message = try client.readMessage() {
            guard case .event(let event) = message else { continue }
            context.write(Self.line(for: event, format: options.format, display: context.display, now: Date(), colors: context.terminal.colors))
        }
    }

    static func line(for event: WireEvent, format: OutputFormat, display: TimeDisplay, now: Date, colors: Bool) -> String {
        switch format {
        case .json, .ndjson:
            return JSONValue.object(event.json).encodedString() + "\n"
        case .table, .csv, .tsv:
            let time = TimeDisplay.clock(now, in: display.timeZone(for: nil))
            let fields = event.fields.members.map { "\($0.key)=\(ObjectListing.raw($0.value))" }.joined(separator: " ")
            let style: TextStyle = event.kind == .storeFailed ? .red : .cyan
            return "\(time) \(style.apply(event.kind.rawValue, colors: colors)) \(fields)\n"
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "The daemon's statistics: requests, errors, latency, stores, objects, memory, uptime.",
        discussion: """
            EXAMPLES:
              almanac stats
              almanac stats --format json
            """
    )

    @OptionGroup var options: ClientOptions

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.stats)
        guard options.format == .table, let stats = try? WireResponse.Stats(json: body) else {
            context.print(body: body)
            return
        }
        let rows: [(String, String)] = [
            ("requests", String(stats.requests)), ("errors", String(stats.errors)),
            ("latency p50", Self.milliseconds(stats.latency.p50)), ("latency p90", Self.milliseconds(stats.latency.p90)),
            ("latency p99", Self.milliseconds(stats.latency.p99)), ("latency max", Self.milliseconds(stats.latency.max)),
            ("stores", String(stats.stores)), ("objects", String(stats.objects)),
            ("resident memory", Self.bytes(stats.residentMemory)), ("subscribers", String(stats.subscribers)),
            ("uptime", "\(Int(stats.uptime)) s"),
        ]
        context.print(
            Listing(
                columns: [.init(header: "STATISTIC", key: "key"), .init(header: "VALUE", key: "value", alignment: .right)],
                rows: rows.map { [.init($0.0), .init($0.1)] },
                objects: [.object(body)]
            )
        )
    }

    static func milliseconds(_ value: Double) -> String {
        String(format: "%.2f ms", value)
    }

    static func bytes(_ value: Int) -> String {
        value >= 1 << 20 ? String(format: "%.1f MiB", Double(value) / 1_048_576) : "\(value / 1024) KiB"
    }
}

struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that the daemon answers.",
        discussion: """
            Exits 0 when the daemon answers, 3 when it cannot be reached.

            EXAMPLES:
              almanac ping
              almanac ping --socket /tmp/almanac.sock
            """
    )

    @OptionGroup var options: ClientOptions

    func run() throws {
        let context = CommandContext(options: options)
        let started = ContinuousClock.now
        let body = try context.send(.ping)
        let elapsed = ContinuousClock.now - started
        if options.format == .table {
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            context.write(String(format: "pong from %@ in %.1f ms\n", context.socketPath, milliseconds))
        } else {
            context.print(body: body)
        }
    }
}
