import AlmanacWire
import ArgumentParser
import Foundation

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One session in full: time, room, speakers, abstract, description and links.",
        discussion: """
            SESSION is a session's guid, its URI (as --format json prints it), or text from its title. Text that \
            matches several sessions lists them (with their guids) and exits 1: run show again with one guid. Times \
            are the conference's (and yours as well, when your zone differs). --format json prints the daemon's \
            object.

            EXAMPLES:
              almanac show 78c50982-46d5-52ab-8fc6-cfd50eaa2fc0
              almanac show "structured concurrency in practice" --conference ssd26
              almanac show "faulting large object graphs" --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: ArgumentHelp("A guid, a URI or text from the title.", valueName: "session")) var session: String
    @Option(help: conferenceHelp) var conference: String?

    /// What `show` asks the daemon for.
    static let properties =
        SessionSummary.properties + [
            "details", "feedbackURL", "doNotRecord", "persons.name", "links.title", "links.url", "conference.title",
        ]

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let conference = try context.conferenceName()
        let found = try Self.find(session, conference: conference, context: context)
        guard found.count == 1, let session = found.first else {
            if found.isEmpty { throw ClientError.notFound("no session matches \"\(self.session)\"") }
            if options.format == .table {
                context.write("\"\(self.session)\" matches \(found.count) sessions:\n")
                context.print(Self.choices(found, display: context.display))
            } else {
                context.print(Listing(columns: [], rows: [], objects: found.map { .object($0.raw.json) }))
            }
            throw ClientError.ambiguous(
                "\"\(self.session)\" matches \(found.count) sessions; run almanac show with one of the guids above")
        }
        switch options.format {
        case .json, .ndjson:
            context.write(JSONValue.object(session.raw.json).encodedString() + "\n")
        case .table, .csv, .tsv:
            let favorites = try context.favoriteGUIDs()
            let favoriteSessions = try context.sessions(guids: favorites.sorted())
            let overlapping = favoriteSessions.filter {
                SessionIdentity($0) != SessionIdentity(session) && !$0.isCancelled && $0.overlap(with: session) != nil
            }
            let page = SessionPage(
                session: session, display: context.display, viewer: context.display.fallback,
                isFavorite: favorites.contains(session.guid), overlapping: overlapping,
                width: context.width ?? 80)
            context.write(page.render(colors: context.terminal.colors))
        }
    }

    /// The sessions `reference` names: by URI, by guid, else by title text (an exact title first, else the
    /// daemon's text search).
    static func find(_ reference: String, conference: String?, context: CommandContext) throws(ClientError)
        -> [SessionSummary]
    {
        let reference = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        func fetch(_ predicate: String, _ variables: JSONObject) throws(ClientError) -> [SessionSummary] {
            var predicate = predicate
            var variables = variables
            if let conference {
                predicate = "(\(predicate)) AND conference.acronym == $CONFERENCE"
                variables["CONFERENCE"] = .string(conference)
            }
            let request = WireRequest.Fetch(
                entity: "Session", predicate: predicate, variables: variables,
                sort: [.init(key: "start"), .init(key: "room.name")], properties: properties)
            return try context.send(.fetch(request), as: WireResponse.Fetch.self).objects.map(SessionSummary.init)
        }
        if reference.contains("://") {
            let object = try context.send(.get(.init(uri: reference)), as: WireResponse.Get.self).object
            guard object.entity == "Session" else {
                throw .usage("\(reference) is a \(object.entity), not a Session")
            }
            let guid = SessionSummary(object).guid
            let found = try fetch("guid == $GUID", ["GUID": .string(guid)])
            return [found.first { $0.uri == object.uri } ?? found.first ?? SessionSummary(object)]
        }
        let byGUID = try fetch("guid == $GUID", ["GUID": .string(reference)])
        if !byGUID.isEmpty { return Array(byGUID.prefix(1)) }
        let byTitle = try fetch("title ==[cd] $TITLE", ["TITLE": .string(reference)])
        if byTitle.count == 1 { return byTitle }
        let template = WireRequest.Template(
            name: "SearchSessions", variables: ["TEXT": .string(reference)], properties: properties)
        var found = try context.send(.template(template), as: WireResponse.Fetch.self).objects.map(SessionSummary.init)
        if let conference { found = found.filter { $0.conference == conference } }
        // A title that contains the text beats a match in an abstract or a speaker's name.
        let inTitle = found.filter {
            $0.title.range(of: reference, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
        return inTitle.isEmpty ? found : inTitle
    }

    /// The candidates of an ambiguous reference: guid first, so that it can be copied.
    static func choices(_ sessions: [SessionSummary], display: TimeDisplay) -> Listing {
        Listing(
            columns: [
                .init(header: "GUID", key: "guid"), .init(header: "WHEN", key: "when"),
                .init(header: "ROOM", key: "room", isFlexible: true),
                .init(header: "TITLE", key: "title", isFlexible: true, isPrimary: true),
                .init(header: "CONF", key: "conference", isFlexible: true),
            ],
            rows: sessions.map {
                [
                    .init($0.guid), .init(display.span($0)), .init($0.room ?? ""), .init($0.title),
                    .init($0.conference ?? ""),
                ]
            },
            objects: sessions.map { .object($0.raw.json) }
        )
    }
}
