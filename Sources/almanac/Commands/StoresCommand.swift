import AlmanacWire
import ArgumentParser
import Foundation

struct StoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "List the daemon's stores (schedule files and favourites).",
        discussion: """
            One row per file: the conference it holds (the name --conference takes), its time zone and where the \
            zone came from (file: the schedule names it; offsets: read from the times' offsets; configured: from \
            almanacd.json; assumed!: nothing said, UTC assumed, so times may be off), whether it is served \
            (serving; shadowed → yields to FILE, a newer release of the same conference; failed; stale: the last \
            read failed and the earlier version is served), how many warnings its reading gave, and its error. \
            --verbose lists every error and warning in full under the table; json and csv carry every field, with \
            the full file path and the store id.

            EXAMPLES:
              almanac stores
              almanac stores --verbose
              almanac stores --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Flag(name: .shortAndLong, help: "List each store's errors and warnings in full under the table.") var verbose =
        false

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.stores)
        let stores: WireResponse.Stores
        do { stores = try WireResponse.Stores(json: body) } catch { throw ClientError.protocolFailure(error.message) }
        let objects = body["stores"]?.arrayValue ?? []
        var sessions: [String: Int]?
        if options.format != .json, options.format != .ndjson {
            sessions = [:]
            // One small fetch: every served session's store, counted per store.
            let fetch = WireRequest.Fetch(entity: "Session", properties: ["guid"])
            for object in try context.send(.fetch(fetch), as: WireResponse.Fetch.self).objects {
                sessions?[object.store, default: 0] += 1
            }
        }
        context.print(
            Self.listing(
                stores.stores, objects: objects, display: context.display, sessions: sessions, verbose: verbose))
        if verbose, options.format == .table { context.write(Self.warnings(stores.stores)) }
    }

    /// The stores as a table: the file's last path component for people, the full path and every field for scripts.
    ///
    /// - Parameters:
    ///   - sessions: The number of sessions each store (by id) serves (nil: not counted).
    ///   - verbose: Whether the table shows the store ids (scripts always get them).
    static func listing(
        _ stores: [WireResponse.StoreInfo],
        objects: [JSONValue],
        display: TimeDisplay,
        sessions: [String: Int]? = nil,
        verbose: Bool = false
    ) -> Listing {
        Listing(
            columns: [
                .init(header: "ID", key: "id", visibility: verbose ? .everywhere : .dataOnly),
                .init(header: "FILE", key: "name", isFlexible: true, isPrimary: true, visibility: .tableOnly),
                .init(header: "file", key: "file", visibility: .dataOnly),
                .init(header: "CONFERENCE", key: "conference", isFlexible: true),
                .init(header: "FORMAT", key: "format", isFlexible: true, isOptional: true, visibility: .tableOnly),
                .init(header: "ZONE", key: "zone", isFlexible: true, minimumWidth: 14, visibility: .tableOnly),
                .init(header: "timeZone", key: "timeZone", visibility: .dataOnly),
                .init(header: "timeZoneSource", key: "timeZoneSource", visibility: .dataOnly),
                .init(header: "STATUS", key: "status", isFlexible: true),
                .init(header: "shadowedBy", key: "shadowedBy", visibility: .dataOnly),
                .init(header: "type", key: "type", visibility: .dataOnly),
                .init(header: "configuration", key: "configuration", visibility: .dataOnly),
                .init(header: "readOnly", key: "readOnly", visibility: .dataOnly),
                .init(header: "SESSIONS", key: "sessions", alignment: .right),
                .init(header: "objects", key: "objects", visibility: .dataOnly),
                .init(header: "WARN", key: "warnings", alignment: .right),
                .init(header: "warningMessages", key: "warningMessages", visibility: .dataOnly),
                .init(header: "LOADED", key: "loaded", isOptional: true, visibility: .tableOnly),
                .init(header: "loadedAt", key: "loadedAt", visibility: .dataOnly),
                .init(header: "ERROR", key: "error", isFlexible: true, shrinksFirst: true),
                .init(header: "settingsError", key: "settingsError", visibility: .dataOnly),
            ],
            rows: stores.map { store in
                [
                    .init(store.id),
                    .init(fileName(store.file)),
                    .init(store.file),
                    .init(store.conference ?? "", raw: store.conference ?? ""),
                    .init(formatName(store.type)),
                    zoneCell(store),
                    .init(store.timeZone ?? ""),
                    .init(store.timeZoneSource ?? ""),
                    statusCell(store),
                    .init(store.shadowedBy ?? ""),
                    .init(store.type),
                    .init(store.configuration ?? ""),
                    .init(store.isReadOnly ? "true" : "false"),
                    sessionsCell(store, count: sessions.map { $0[store.id] ?? 0 }),
                    .init(String(store.objects)),
                    .init(
                        store.warnings.count == 0 ? "" : String(store.warnings.count),
                        raw: String(store.warnings.count),
                        style: store.warnings.count == 0 ? .plain : .yellow),
                    .init(store.warnings.messages.joined(separator: "\n")),
                    .init(store.loadedAt.map { loadedText($0, display: display) } ?? ""),
                    .init(store.loadedAt.map { WireDate.string(from: $0) } ?? ""),
                    errorCell(store),
                    .init(store.settingsError ?? ""),
                ]
            },
            objects: objects
        )
    }

    /// How many sessions a store serves: a dash for one that serves none by its state (shadowed, failed), empty
    /// when not counted.
    static func sessionsCell(_ store: WireResponse.StoreInfo, count: Int?) -> Listing.Cell {
        guard store.status == .serving || store.status == .stale else { return .init("—", raw: "") }
        return .init(count.map(String.init) ?? "", raw: count.map(String.init) ?? "")
    }

    /// When a store was loaded, short: `19:09` today, `24 Nov 19:09` before (in the viewer's zone).
    static func loadedText(_ date: Date, display: TimeDisplay, now: Date = Date()) -> String {
        let zone = display.timeZone(for: nil)
        let clock = TimeDisplay.clock(date, in: zone)
        guard TimeDisplay.isoDay(date, in: zone) != TimeDisplay.isoDay(now, in: zone) else { return clock }
        return String(TimeDisplay.day(date, in: zone).dropFirst(4)) + " " + clock
    }

    /// The reader or store type as a person names the format: `FrabXML` → `frab XML`.
    static func formatName(_ type: String) -> String {
        switch type {
        case "FrabXML": return "frab XML"
        case "FrabJSON": return "frab JSON"
        case "ICalendar", "ICS": return "iCalendar"
        case "XML": return "XML store"
        default: return type
        }
    }

    /// `Europe/Berlin` (named by the file), `Europe/Berlin (configured)`, `UTC (assumed!)`.
    static func zoneCell(_ store: WireResponse.StoreInfo) -> Listing.Cell {
        guard let zone = store.timeZone, !zone.isEmpty else { return .init("") }
        guard let source = store.timeZoneSource, !source.isEmpty, source != "file" else { return .init(zone) }
        let isAssumed = source == "assumed"
        return .init("\(zone) (\(source)\(isAssumed ? "!" : ""))", style: isAssumed ? .yellow : .plain)
    }

    /// `serving`, `shadowed → yields to 38c3-v2.xml`, `failed`, `stale`. A shared (PostgreSQL) store adds its
    /// connection: `serving (connected)`, `serving (reconnecting since 2026-11-26T19:09:00Z: connection refused)`.
    static func statusCell(_ store: WireResponse.StoreInfo) -> Listing.Cell {
        if store.status == .serving, let connection = store.connection {
            switch connection.state {
            case .connected: return .init("serving (connected)", raw: "serving")
            case .reconnecting, .closed:
                var text = "serving (\(connection.state.rawValue)"
                if let since = connection.since { text += " since " + WireDate.string(from: since) }
                if let error = connection.lastError { text += ": " + TextWidth.singleLine(error) }
                return .init(text + ")", raw: "serving", style: .yellow)
            }
        }
        switch store.status {
        case .serving: return .init("serving", raw: "serving")
        case .shadowed:
            let text = store.shadowedBy.map { "shadowed → yields to " + fileName($0) } ?? "shadowed"
            return .init(text, raw: "shadowed", style: .dim)
        case .failed: return .init("failed", raw: "failed", style: .red)
        case .stale: return .init("stale (earlier version served)", raw: "stale", style: .yellow)
        }
    }

    /// The reading error, then the settings error.
    static func errorCell(_ store: WireResponse.StoreInfo) -> Listing.Cell {
        let parts = [store.error, store.settingsError.map { "settings: " + $0 }].compactMap { $0 }.filter {
            !$0.isEmpty
        }
        return .init(parts.joined(separator: "; "), raw: store.error ?? "", style: .red)
    }

    /// The errors and warnings of each store that has some, in full, under the file's name.
    static func warnings(_ stores: [WireResponse.StoreInfo]) -> String {
        var text = ""
        for store in stores where store.warnings.count > 0 || store.settingsError != nil || store.error != nil {
            text += "\n\(fileName(store.file)) (\(store.file)):\n"
            if let error = store.error { text += "  error: \(TextWidth.singleLine(error))\n" }
            if let settingsError = store.settingsError {
                text += "  settings: \(TextWidth.singleLine(settingsError))\n"
            }
            for message in store.warnings.messages { text += "  \(TextWidth.singleLine(message))\n" }
            let more = store.warnings.count - store.warnings.messages.count
            if more > 0 { text += "  … and \(more) more\n" }
        }
        return text
    }

    /// The last path component of a file path.
    static func fileName(_ path: String) -> String {
        path.isEmpty ? "" : (path as NSString).lastPathComponent
    }
}
