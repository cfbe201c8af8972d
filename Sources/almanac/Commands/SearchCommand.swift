import AlmanacWire
import ArgumentParser
import Foundation

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search sessions by text (the model's SearchSessions template).",
        discussion: """
            Looks in titles, subtitles, abstracts, descriptions, speakers, tracks and rooms, ignoring case and \
            accents; sessions whose title matches come first (the daemon's order).

            EXAMPLES:
              almanac search "structured concurrency"
              almanac search storage --conference ssd26 --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The text to look for.") var text: String
    @Option(help: "The most sessions to show.") var limit: Int?
    @OptionGroup var filter: SessionFilterOptions

    func run() throws {
        let context = CommandContext(options: options, conference: filter.conference)
        let conference = try context.conferenceName()
        let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
        let filtersHere = conference != nil || !sessionFilter.isEmpty
        // The template takes no conference: filter here, and apply the limit after the filter.
        let template = WireRequest.Template(
            name: "SearchSessions",
            variables: ["TEXT": .string(text)],
            limit: filtersHere ? nil : limit,
            properties: SessionSummary.properties
        )
        var objects = try context.send(.template(template), as: WireResponse.Fetch.self).objects
        if filtersHere {
            objects = objects.filter { object in
                let session = SessionSummary(object)
                return (conference == nil || session.conference == conference) && sessionFilter.matches(session)
            }
            if let limit { objects = Array(objects.prefix(max(0, limit))) }
        }
        if objects.isEmpty, options.format == .table {
            context.write("No session matches \"\(text)\".\n")
            return
        }
        try SessionOutput.print(objects, context: context)
    }
}
