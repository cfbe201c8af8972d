import AlmanacWire
import ArgumentParser
import Foundation

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export sessions to other formats.",
        subcommands: [ICS.self, HTML.self]
    )

    struct ICS: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ics",
            abstract: "Write sessions as an iCalendar (RFC 5545) file.",
            discussion: """
                Each session becomes a VEVENT with a stable UID (guid@conference.almanac), times in UTC, and \
                STATUS:CANCELLED for cancelled sessions.

                EXAMPLES:
                  almanac export ics --favorites > favourites.ics
                  almanac export ics --conference ssd26 --output ssd26.ics
                """
        )

        @OptionGroup var options: ClientOptions
        @Flag(help: "Only favourite sessions.") var favorites = false
        @OptionGroup var filter: SessionFilterOptions
        @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        func run() throws {
            let context = CommandContext(options: options, conference: filter.conference)
            let conference = try context.conferenceName()
            let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
            var sessions: [SessionSummary]
            if favorites {
                sessions = try context.sessions(guids: try context.favoriteGUIDs().sorted(), conference: conference)
            } else {
                sessions = try context.sessions(predicate: nil, conference: conference)
            }
            sessions = sessionFilter.apply(sessions)
            var name = "Almanac"
            if let conference { name += " " + conference }
            if favorites { name += " favourites" }
            let text = ICSWriter(stamp: context.now, calendarName: name).calendar(sessions)
            if let output {
                do {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw ClientError.usage("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                context.write(text)
            }
        }
    }
}
