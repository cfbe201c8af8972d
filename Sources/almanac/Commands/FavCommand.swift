import AlmanacWire
import ArgumentParser
import Foundation

struct FavCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fav",
        abstract: "Add, remove and list favourite sessions.",
        discussion: """
            A favourite is a Favorite object {conferenceAcronym, sessionGUID} in a writable store of the daemon, \
            with the session's title and start kept beside them (sessionTitle, sessionStart) so that a favourite \
            whose session a newer release removes can still be named.

            EXAMPLES:
              almanac fav add 78c50982-46d5-52ab-8fc6-cfd50eaa2fc0
              almanac fav remove x-coredata://6B1D0E1A-4C2F-4E8B-9A57-3F2C1D0E9B8A/Session/p12
              almanac fav list
            """,
        subcommands: [Add.self, Remove.self, List.self],
        defaultSubcommand: List.self
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a session as favourite.",
            discussion: """
                EXAMPLES:
                  almanac fav add 78c50982-46d5-52ab-8fc6-cfd50eaa2fc0
                  almanac fav add x-coredata://6B1D0E1A-4C2F-4E8B-9A57-3F2C1D0E9B8A/Session/p12 --note "with Ana" --store personal.sqlite
                """
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The session's guid or URI.") var session: String
        @Option(help: "A note to keep with the favourite.") var note: String?
        @Option(help: "The store for the favourite, when several could hold it.") var store: String?

        func run() throws {
            let context = CommandContext(options: options)
            let target = try context.session(named: session)
            let existing = try context.favoriteObjects().map(FavoriteKey.init)
            if existing.contains(where: { $0.matches(target) }) {
                context.write("Already a favourite: \(target.title)\n")
                return
            }
            var values: JSONObject = [
                "conferenceAcronym": .string(target.conference ?? ""), "sessionGUID": .string(target.guid),
                "createdAt": .date(context.now),
            ]
            if let note { values["note"] = .string(note) }
            var snapshot: JSONObject = ["sessionTitle": .string(target.title)]
            if let start = target.start { snapshot["sessionStart"] = .date(start) }
            var withSnapshot = values
            for (key, value) in snapshot.members { withSnapshot[key] = value }
            let body = try FavCommand.insert(
                withSnapshot, orElse: values, snapshotKeys: ["sessionTitle", "sessionStart"], store: store,
                context: context)
            if options.format == .table {
                context.write("★ \(target.title) (\(context.display.span(target)))\n")
            } else {
                context.print(body: body)
            }
        }
    }

    /// Inserts a favourite with its snapshot; a daemon whose model predates the snapshot refuses its keys
    /// (`bad_request` naming one), and the favourite is kept without them.
    static func insert(
        _ values: JSONObject,
        orElse plain: JSONObject,
        snapshotKeys: Set<String>,
        store: String?,
        context: CommandContext
    ) throws(ClientError) -> JSONObject {
        do {
            return try context.send(.insert(.init(entity: "Favorite", values: values, store: store)))
        } catch {
            guard case .daemon(let refusal) = error, refusal.code == .badRequest,
                snapshotKeys.contains(refusal.field ?? "")
            else { throw error }
        }
        return try context.send(.insert(.init(entity: "Favorite", values: plain, store: store)))
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a session from the favourites.",
            discussion: """
                EXAMPLES:
                  almanac fav remove 78c50982-46d5-52ab-8fc6-cfd50eaa2fc0
                """
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The session's guid or URI.") var session: String

        func run() throws {
            let context = CommandContext(options: options)
            var guid = session
            if session.contains("://") { guid = try context.session(named: session).guid }
            let matching = try context.favoriteObjects().filter { $0.values["sessionGUID"]?.stringValue == guid }
            guard !matching.isEmpty else { throw ClientError.notFound("\(session) is not a favourite") }
            for favorite in matching {
                _ = try context.send(.delete(.init(uri: favorite.uri)))
            }
            if options.format == .table { context.write("Removed \(guid) from the favourites\n") }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the favourite sessions.",
            discussion: """
                A favourite whose session is in no schedule any more (a newer release removed it) is listed as \
                gone, with the title and time it had and its conference (from the snapshot kept by fav add; for \
                older favourites, from the last changes, else by guid).

                EXAMPLES:
                  almanac fav list
                  almanac fav list --conference ssd26 --format csv
                """
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var filter: SessionFilterOptions

        func run() throws {
            let context = CommandContext(options: options, conference: filter.conference)
            let conference = try context.conferenceName()
            let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
            var favorites = try context.favoriteObjects()
            if let conference { favorites = favorites.filter { FavoriteKey($0).conference == conference } }
            if options.format == .json || options.format == .ndjson {
                context.print(Listing(columns: [], rows: [], objects: favorites.map { .object($0.json) }))
                return
            }
            let keys = favorites.map(FavoriteKey.init)
            let found = try context.sessions(guids: Array(Set(keys.map(\.guid))).sorted(), conference: conference)
            let sessions = sessionFilter.apply(found.filter { session in keys.contains { $0.matches(session) } })
            let missing = favorites.filter { favorite in !sessions.contains { FavoriteKey(favorite).matches($0) } }
            var changes: JSONObject?
            if missing.contains(where: { $0.values["sessionTitle"]?.stringValue == nil }) {
                changes = try? context.send(.changes(.init(conference: nil)))
            }
            let gone: [SessionSummary] =
                !sessionFilter.isEmpty
                ? []
                : missing.map { favorite in
                    var session = Self.goneSession(favorite, changes: changes)
                    if session.timeZone == nil { session.timeZone = context.zone(ofConference: session.conference) }
                    return session
                }
            let all = sessions + gone
            context.print(
                SessionListing.make(
                    all, favorites: Set(keys.map(\.guid)), display: context.display,
                    showConference: gone.isEmpty ? nil : conference == nil
                )
            )
            if !gone.isEmpty, options.format == .table {
                let count =
                    gone.count == 1 ? "1 favourite refers to a session" : "\(gone.count) favourites refer to sessions"
                FileHandle.standardError.write(Data("almanac: \(count) no longer in any schedule (marked gone)\n".utf8))
            }
        }

        /// A favourite whose session is gone, as a session: its snapshot (title, start), else the old values of a
        /// removed session with its guid in `changes`, else its guid.
        static func goneSession(_ favorite: WireObject, changes: JSONObject?) -> SessionSummary {
            let key = FavoriteKey(favorite)
            var values: JSONObject = ["guid": .string(key.guid), "title": .string(key.guid)]
            if let conference = key.conference { values["conference.acronym"] = .string(conference) }
            if let title = favorite.values["sessionTitle"]?.stringValue {
                values["title"] = .string(title)
                if let start = favorite.values["sessionStart"], start != .null { values["start"] = start }
            } else if let changes {
                let removed = ChangesCommand.groups(changes).first { $0.0 == "removed" }?.1 ?? []
                if let old = removed.first(where: { key.matches($0.session) })?.session {
                    values["title"] = .string(old.title)
                    if let start = old.start { values["start"] = .date(start) }
                    if let end = old.end { values["end"] = .date(end) }
                    if let room = old.room { values["room.name"] = .string(room) }
                }
            }
            let object = WireObject(uri: favorite.uri, entity: "Session", store: favorite.store, values: values)
            var session = SessionSummary(object)
            session.isGone = true
            return session
        }
    }
}

/// What a favourite points at: a session guid in a conference (by name; nil for favourites without one).
struct FavoriteKey: Hashable {
    var conference: String?
    var guid: String

    init(_ favorite: WireObject) {
        let conference = favorite.values["conferenceAcronym"]?.stringValue
        self.conference = conference?.isEmpty == false ? conference : nil
        guid = favorite.values["sessionGUID"]?.stringValue ?? ""
    }

    /// Whether `session` is the favourite's: the same guid, in the same conference when the favourite names one.
    func matches(_ session: SessionSummary) -> Bool {
        session.guid == guid && (conference == nil || session.conference == nil || session.conference == conference)
    }
}
