import AlmanacWire
import ArgumentParser
import Foundation

extension ExportCommand {
    struct HTML: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "html",
            abstract: "Write a printable timetable as one self-contained HTML page.",
            discussion: """
                One section per conference day, rooms as columns in the schedule file's order, each session a \
                block as tall as it lasts, with its time, title, speakers, room and track. Favourites are \
                highlighted (★); favourites that overlap another favourite are marked (⚠) with what they overlap. \
                Times are in each conference's zone (--utc and --tz change that), named with its offset. The page \
                needs no network and no scripts; printed, each day starts an A4 landscape page.

                EXAMPLES:
                  almanac export html > timetable.html
                  almanac export html --favorites --output favourites.html
                  almanac export html --conference ssd26 --day 2026-11-23 --room "Hall A" > ssd26.html
                """
        )

        @OptionGroup var options: ClientOptions
        @Flag(help: "Only favourite sessions.") var favorites = false
        @Option(help: "Only this conference day: YYYY-MM-DD, today, tomorrow or yesterday.") var day: String?
        @OptionGroup var filter: SessionFilterOptions
        @Option(help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        /// What the page shows of a session beyond the summary: its speakers and its day.
        static let properties = SessionSummary.properties + ["persons.name", "day.date"]

        func validate() throws {
            if let day, DayArgument(day) == nil {
                throw ValidationError("--day must be YYYY-MM-DD, today, tomorrow or yesterday, not \(day)")
            }
        }

        func run() throws {
            let context = CommandContext(options: options, conference: filter.conference)
            let conference = try context.conferenceName()
            let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
            let keys = try context.favoriteObjects().map(FavoriteKey.init)
            var sessions: [SessionSummary]
            if let day {
                sessions = try DayRange.sessions(
                    on: day, conference: conference, context: context, properties: Self.properties
                ).sessions
            } else if favorites {
                sessions = try context.sessions(
                    guids: Array(Set(keys.map(\.guid))).sorted(), conference: conference, properties: Self.properties)
            } else {
                sessions = try context.sessions(predicate: nil, conference: conference, properties: Self.properties)
            }
            let favourites = sessions.filter { session in keys.contains { $0.matches(session) } }
            // Overlaps among all favourites of the conference or day, also those another filter leaves out.
            let conflicts = ConflictsCommand.conflicts(favourites)
            sessions = sessionFilter.apply(favorites ? favourites : sessions)

            let display = context.display
            let days = TimetableDay.days(
                sessions,
                dayZone: { $0.timeZone ?? display.fallback },
                displayZone: { display.timeZone(for: $0.timeZone) }
            )
            let page = TimetablePage(
                title: title(conference: conference, day: days.count == 1 ? days.first : nil),
                favorites: Set(favourites.map(\.guid)),
                conflicts: conflicts,
                generated: context.now
            )
            let html = page.render(days)
            if let output {
                do {
                    try Data(html.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw ClientError.usage("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                context.write(html)
            }
        }

        /// `Timetable · ssd26 · Mon 23 Nov 2026 · favourites`.
        func title(conference: String?, day: TimetableDay?) -> String {
            var parts = ["Timetable"]
            if let conference { parts.append(conference) }
            if let day, self.day != nil { parts.append(GridCommand.title(date: day.date)) }
            if favorites { parts.append("favourites") }
            return parts.joined(separator: " · ")
        }
    }
}
