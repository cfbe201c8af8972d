import AlmanacWire
import ArgumentParser

struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Run a fetch request template of the model by name.",
        discussion: """
            EXAMPLES:
              almanac template SearchSessions TEXT=keynote
              almanac template SessionsInRoom ROOM="Hall A" --format json
            """
    )

    @OptionGroup var options: ClientOptions

    @Argument(help: "The template's name.")
    var name: String

    @Argument(help: ArgumentHelp("Template variables.", valueName: "VAR=VALUE"))
    var variables: [String] = []

    @Option(help: "The most objects to show.")
    var limit: Int?

    func validate() throws {
        do { _ = try ArgumentSyntax.assignments(variables) } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let context = CommandContext(options: options)
        let template = WireRequest.Template(
            name: name,
            variables: try ArgumentSyntax.assignments(variables),
            limit: limit,
            properties: nil
        )
        var objects = try context.send(.template(template), as: WireResponse.Fetch.self).objects
        // Sessions for people: ask again for what a session listing shows (room, track, the conference's zone).
        if options.format != .json, options.format != .ndjson, !objects.isEmpty,
            objects.allSatisfy({ $0.entity == "Session" })
        {
            var detailed = template
            detailed.properties = SessionSummary.properties
            objects = try context.send(.template(detailed), as: WireResponse.Fetch.self).objects
        }
        try SessionOutput.print(objects, context: context)
    }
}
