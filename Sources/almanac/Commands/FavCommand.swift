import AlmanacWire
import ArgumentParser
import Foundation

struct FavCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fav",
        abstract: "Add, remove and list favourite sessions.",
        discussion: """
            A favourite is a Favorite object {conferenceAcronym, sessionGUID} in a writable store of the daemon.

            EXAMPLES:
              almanac fav add 6a1c7e1e-5c2b-4bb8-9f3c-2f8e0a1b2c3d
              almanac fav remove x-almanac://38c3/Session/p42
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
                  almanac fav add 6a1c7e1e-5c2b-4bb8-9f3c-2f8e0a1b2c3d
                  almanac fav add x-almanac://38c3/Session/p42 --note "with Ana" --store favorites.sqlite
                """
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The session's guid or URI.") var session: String
        @Option(help: "A note to keep with the favourite.") var note: String?
        @Option(help: "The store for the favourite, when several could hold it.") var store: String?

        func run() throws {
            let context = CommandContext(options: options)
            let target = try context.session(named: session)
            if try context.favoriteGUIDs().contains(target.guid) {
                context.write("Already a favourite: \(target.title)\n")
                return
            }
            var values: JSONObject = [
                "conferenceAcronym": .string(target.conference ?? ""), "sessionGUID": .string(target.guid),
                "createdAt": .date(context.now),
            ]
            if let note { values["note"] = .string(note) }
            let body = try context.send(.insert(.init(entity: "Favorite", values: values, store: store)))
            if options.format == .table {
                context.write("★ \(target.title) (\(context.display.span(target)))\n")
            } else {
                context.print(body: body)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a session from the favourites.",
            discussion: """
                EXAMPLES:
                  almanac fav remove 6a1c7e1e-5c2b-4bb8-9f3c-2f8e0a1b2c3d
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
                EXAMPLES:
                  almanac fav list
                  almanac fav list --format csv
                """
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "Only this conference (acronym).") var conference: String?

        func run() throws {
            let context = CommandContext(options: options)
            let favorites = try context.favoriteObjects()
            let guids = favorites.compactMap { $0.values["sessionGUID"]?.stringValue }
            let sessions = try context.sessions(guids: guids, conference: conference)
            if options.format == .json || options.format == .ndjson {
                context.print(Listing(columns: [], rows: [], objects: favorites.map { .object($0.json) }))
                return
            }
            context.print(SessionListing.make(sessions, favorites: Set(guids), display: context.display))
            let missing = Set(guids).subtracting(sessions.map(\.guid))
            if !missing.isEmpty, conference == nil {
                FileHandle.standardError.write(Data("almanac: \(missing.count) favourite(s) refer to sessions no longer in any schedule\n".utf8))
            }
        }
    }
}
