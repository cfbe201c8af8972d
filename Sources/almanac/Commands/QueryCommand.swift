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

            Groups and aggregates (--group-by, --count, --sum, --avg, --min, --max) print one row per group; \
            sort and --limit apply to the groups, by group key or by aggregate name (count, sum(duration), …):
              almanac query Session --group-by room.name --count --sum duration --sort=-count
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

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Group by these key paths.", valueName: "keys"))
    var groupBy: String?

    @Flag(help: "Count the objects (of each group), as the column count.")
    var count = false

    @Option(help: ArgumentHelp("Sum a key path (repeatable), as the column sum(KEY).", valueName: "key"))
    var sum: [String] = []

    @Option(help: ArgumentHelp("Average a key path (repeatable), as avg(KEY).", valueName: "key"))
    var avg: [String] = []

    @Option(help: ArgumentHelp("The least value of a key path (repeatable), as min(KEY).", valueName: "key"))
    var min: [String] = []

    @Option(help: ArgumentHelp("The greatest value of a key path (repeatable), as max(KEY).", valueName: "key"))
    var max: [String] = []

    /// The aggregates the flags ask for, in flag order.
    var aggregates: [WireRequest.Fetch.Aggregate] {
        var aggregates: [WireRequest.Fetch.Aggregate] = []
        if count { aggregates.append(.init(name: "count", function: "count")) }
        for (function, keys) in [("sum", sum), ("avg", avg), ("min", min), ("max", max)] {
            aggregates += keys.map { .init(name: "\(function)(\($0))", function: function, key: $0) }
        }
        return aggregates
    }

    /// Whether the command asks for groups rather than objects.
    var isGrouping: Bool { groupBy != nil || !aggregates.isEmpty }

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
            stores: stores.isEmpty ? nil : stores,
            resultType: isGrouping ? "dictionary" : nil,
            aggregates: aggregates,
            groupBy: groupBy.map(ArgumentSyntax.fields)
        )
    }

    func run() throws {
        let context = CommandContext(options: options)
        let fetch = try request()
        let answer = try context.send(.fetch(fetch), as: WireResponse.Fetch.self)
        if let rows = answer.rows {
            let keys = (fetch.properties ?? fetch.groupBy ?? []) + fetch.aggregates.map(\.name)
            context.print(Self.rowListing(rows, keys: keys, display: context.display))
        } else {
            context.print(ObjectListing.make(answer.objects, fields: fetch.properties, display: context.display))
        }
    }

    /// A table of a dictionary fetch's rows: the group keys, then the aggregates (numbers right-aligned; averages
    /// and other fractions to two places in the table, in full in the formats for scripts).
    static func rowListing(_ rows: [JSONObject], keys: [String], display: TimeDisplay) -> Listing {
        let columns = keys.map { key in
            let numeric = rows.contains { row in
                if case .int? = row[key] { return true }
                if case .double? = row[key] { return true }
                return false
            }
            return Listing.Column(header: key, key: key, alignment: numeric ? .right : .left, isFlexible: !numeric)
        }
        let cells = rows.map { row in
            keys.map { key in
                let value = row[key]
                let text: String
                if case .double(let number)? = value, number.isFinite {
                    text = Self.twoPlaces(number)
                } else {
                    text = ObjectListing.human(value, display: display, zone: nil)
                }
                return Listing.Cell(text, raw: ObjectListing.raw(value))
            }
        }
        return Listing(columns: columns, rows: cells, objects: rows.map { .object($0) })
    }

    /// A number to at most two decimal places, without trailing zeros: 63.333… as 63.33, 40.0 as 40.
    static func twoPlaces(_ number: Double) -> String {
        var text = String(format: "%.2f", number)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
