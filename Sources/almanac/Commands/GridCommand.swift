import AlmanacWire
import ArgumentParser
import Foundation

struct GridCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grid",
        abstract: "A day's timetable: rooms as columns, time as rows.",
        discussion: """
            The day is a conference day: its rows run from the day's start to its end as the schedule gives them \
            (at a congress 10:00 to about 04:00 the next morning, so that at 01:30 the grid still shows the day \
            that started the morning before), and it holds the sessions that start in that window. On a terminal \
            the timetable is fitted to its width (COLUMNS, else the terminal's size); favourites are marked ★, \
            cancelled sessions ✗, and a line marks the current time. When the output is not a terminal (or with \
            --format), the sessions are listed instead.

            EXAMPLES:
              almanac grid
              almanac grid --day 2024-12-28 --conference 38c3
              COLUMNS=200 almanac grid --day tomorrow
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "The conference day: YYYY-MM-DD, today, tomorrow or yesterday.") var day = "today"
    @Option(help: conferenceHelp) var conference: String?
    @Option(help: "Minutes per row.") var slot = 15

    func validate() throws {
        guard DayArgument(day) != nil else {
            throw ValidationError("--day must be YYYY-MM-DD, today, tomorrow or yesterday, not \(day)")
        }
        guard (5...120).contains(slot) else { throw ValidationError("--slot must be between 5 and 120 minutes") }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let conference = try context.conferenceName()
        let selection = try DayRange.sessions(on: day, conference: conference, context: context)
        guard context.terminal.isTerminal || context.environment["COLUMNS"] != nil, options.format == .table else {
            SessionOutput.print(selection.sessions, context: context)
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        let zone = context.display.timeZone(for: selection.zone)
        let renderer = GridRenderer(
            width: context.terminal.width,
            timeZone: zone,
            now: context.now,
            favorites: favorites,
            window: selection.window,
            slotMinutes: slot,
            colors: context.terminal.colors
        )
        let title = Self.title(date: selection.date) + (conference.map { " · \($0)" } ?? "")
        context.write(renderer.render(selection.sessions, title: title))
    }

    /// `Sat 28 Dec 2024` for `2024-12-28`.
    static func title(date: String) -> String {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        let calendar = TimeDisplay.calendar(in: ConferenceZone.utc)
        guard parts.count == 3,
            let noon = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12))
        else { return date }
        return TimeDisplay.day(noon, in: ConferenceZone.utc) + " " + String(parts[0])
    }
}
