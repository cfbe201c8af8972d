import AlmanacWire
import ArgumentParser

struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert an object.",
        discussion: """
            Values: key=value sets a string (dates as ISO 8601), key:=JSON any JSON value.

            EXAMPLES:
              almanac insert Favorite conferenceAcronym=ssd26 sessionGUID=78c50982-46d5-52ab-8fc6-cfd50eaa2fc0
              almanac insert Favorite conferenceAcronym=ssd26 sessionGUID=abc note="see with Ana" --store personal.sqlite
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: ArgumentHelp("Values.", valueName: "key=value")) var values: [String] = []
    @Option(help: "The store to insert into, when several could hold the object.") var store: String?

    func validate() throws {
        do { _ = try ArgumentSyntax.assignments(values) } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(
            .insert(.init(entity: entity, values: try ArgumentSyntax.assignments(values), store: store)))
        if options.format == .table, let answer = try? WireResponse.Insert(json: body) {
            context.write("Inserted \(answer.uri) into \(answer.store)\n")
        } else {
            context.print(body: body)
        }
    }
}

struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change values of an object.",
        discussion: """
            EXAMPLES:
              almanac update x-coredata://6B1D0E1A-4C2F-4E8B-9A57-3F2C1D0E9B8A/Favorite/p1 note="front row"
              almanac update x-coredata://6B1D0E1A-4C2F-4E8B-9A57-3F2C1D0E9B8A/Favorite/p1 note:=null
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The object's URI.") var uri: String
    @Argument(help: ArgumentHelp("Values.", valueName: "key=value")) var values: [String] = []

    func validate() throws {
        guard !values.isEmpty else { throw ValidationError("give at least one key=value") }
        do { _ = try ArgumentSyntax.assignments(values) } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.update(.init(uri: uri, values: try ArgumentSyntax.assignments(values))))
        if let object = try? WireResponse.Get(json: body).object {
            context.print(ObjectListing.make([object], fields: nil, display: context.display))
        } else {
            context.print(body: body)
        }
    }
}

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object.",
        discussion: """
            EXAMPLES:
              almanac delete x-coredata://6B1D0E1A-4C2F-4E8B-9A57-3F2C1D0E9B8A/Favorite/p1
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The object's URI.") var uri: String

    func run() throws {
        let context = CommandContext(options: options)
        let body = try context.send(.delete(.init(uri: uri)))
        if options.format == .table {
            context.write("Deleted \(uri)\n")
        } else {
            context.print(body: body)
        }
    }
}
