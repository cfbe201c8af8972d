import AlmanacWire
import ArgumentParser
import Foundation

struct GridCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grid",
        abstract: "A day's timetable: rooms as columns, time as rows.",
        discussion: """
            On a terminal the timetable is fitted to its width (COLUMNS, else the terminal's size); favourites are \
            marked ★, cancelled sessions ✗, and a line marks the current time. When the output is not a terminal \
            (or with --format), the sessions are listed instead.

            EXAMPLES:
              almanac grid
              almanac grid --day 2024-12-28 --conference 38c3
              COLUMNS=200 almanac grid --day tomorrow
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "The day: YYYY-MM-DD, today or tomorrow.") var day = "today"
    @Option(help: "Only this conference (acronym).") var conference: String?
    @Option(help: "Minutes per row.") var slot = 15

    func validate() throws {
        guard HumanInput.dayStart(day, now: Date(), in: .current) != nil else {
            throw ValidationError("--day must be YYYY-MM-DD, today, tomorrow or yesterday, not \(day)")
        }
        guard (5...120).contains(slot) else { throw ValidationError("--slot must be between 5 and 120 minutes") }
    }

    func run() throws {
        let context = CommandContext(options: options)
        let (sessions, zone, start) = try DayRange.sessions(on: day, conference: conference, context: context)
        guard context.terminal.isTerminal || context.environment["COLUMNS"] != nil, options.format == .table else {
            SessionOutput.print(sessions, context: context)
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        let renderer = GridRenderer(
            width: context.terminal.width,
            timeZone: zone,
            now: context.now,
            favorites: favorites,
            slotMinutes: slot,
            colors: context.terminal.colors
        )
        let title = TimeDisplay.day(start, in: zone) + " " + String(TimeDisplay.calendar(in: zone).component(.year, from: start))
            + (conference.map { " · \($0)" } ?? "")
        context.write(renderer.render(sessions, title: title))
    }
}
