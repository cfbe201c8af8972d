import AlmanacWire
import ArgumentParser

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch objects of an entity with a predicate.",
        discussion: """
            The predicate uses the daemon's syntax (like NSPredicate). Variables: --var NAME=VALUE passes a \
            string, --var NAME:=JSON any JSON value (numbers, true, lists). Sort keys are comma-separated; a \
            leading - sorts descending, a trailing /i compares case-insensitively, /l like Finder.

            EXAMPLES:
              almanac query Session --where 'title CONTAINS[cd] $Q' --var Q=concurrency --sort start
              almanac query Session --where 'duration > $MIN' --var MIN:=60 --fields title,duration,room.name
              almanac query Room --sort name --format csv
            """
    )

    @OptionGroup var options: ClientOptions

    @Argument(help: "The entity, e.g. Session, Room, Person, Favorite.")
    var entity: String

    @Option(name: .customLong("where"), help: ArgumentHelp("The predicate.", valueName: "predicate"))
    var predicate: String?

    @Option(name: .customLong("var"), help: ArgumentHelp("A predicate variable.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(help: ArgumentHelp("Sort keys, e.g. start,-title.", valueName: "keys"))
    var sort: String?

    @Option(help: "The most objects to show.")
    var limit: Int?

    @Option(help: "How many objects to skip.")
    var offset: Int?

    @Option(help: ArgumentHelp("The key paths to show, e.g. title,start,room.name.", valueName: "fields"))
    var fields: String?

    @Option(name: .customLong("store"), help: ArgumentHelp("Only these stores (repeatable).", valueName: "store"))
    var stores: [String] = []

    func validate() throws {
        do {
            _ = try request()
        } catch {
            throw ValidationError(error.message)
        }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let offset, offset < 0 { throw ValidationError("--offset must not be negative") }
    }

    /// The fetch this command sends.
    func request() throws(ClientError) -> WireRequest.Fetch {
        WireRequest.Fetch(
            entity: entity,
            predicate: predicate,
            variables: try ArgumentSyntax.assignments(variables),
            sort: try sort.map(ArgumentSyntax.sortKeys) ?? [],
            limit: limit,
            offset: offset,
            properties: fields.map(ArgumentSyntax.fields),
            stores: stores.isEmpty ? nil : stores
        )
    }

    func run() throws {
        let context = CommandContext(options: options)
        let fetch = try request()
        let answer = try context.send(.fetch(fetch), as: WireResponse.Fetch.self)
        context.print(ObjectListing.make(answer.objects, fields: fetch.properties, display: context.display))
    }
}
