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
            that started the morning before), and it holds the sessions that start in that window. Rooms are \
            columns in the schedule file's order; when they do not fit the width, they come in pages (--page N, \
            and a footer names the rooms on the other pages), and --room or --track picks the ones you want. On a \
            terminal the timetable is fitted to its width (COLUMNS, else the terminal's size); favourites are \
            marked ★, cancelled sessions ✗, a line marks the current time, and boxes take their track's colour \
            (not with NO_COLOR). When the output is not a terminal, the sessions are listed instead, unless \
            --width is given.

            EXAMPLES:
              almanac grid
              almanac grid --day 2026-11-23 --conference ssd26
              almanac grid --day 2026-11-23 --room "Hall A" --room "Hall B"
              almanac grid --day 2026-11-23 --conference ssd26 --width 60 --page 2
              COLUMNS=200 almanac grid --day tomorrow
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "The conference day: YYYY-MM-DD, today, tomorrow or yesterday.") var day = "today"
    @OptionGroup var filter: SessionFilterOptions
    @Option(help: "Minutes per row.") var slot = 15
    @Option(help: "The page of rooms to show when they do not all fit (from 1).") var page = 1

    func validate() throws {
        guard DayArgument(day) != nil else {
            throw ValidationError("--day must be YYYY-MM-DD, today, tomorrow or yesterday, not \(day)")
        }
        guard (5...120).contains(slot) else { throw ValidationError("--slot must be between 5 and 120 minutes") }
        guard page >= 1 else { throw ValidationError("--page counts from 1") }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: filter.conference)
        let conference = try context.conferenceName()
        let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
        var selection = try DayRange.sessions(on: day, conference: conference, context: context)
        selection.sessions = sessionFilter.apply(selection.sessions)
        guard let width = context.width, options.format == .table else {
            SessionOutput.print(selection.sessions, context: context, empty: "No sessions on \(selection.date).")
            return
        }
        let favorites = (try? context.favoriteGUIDs()) ?? []
        let zone = context.display.timeZone(for: selection.zone)
        let renderer = GridRenderer(
            width: width,
            timeZone: zone,
            now: context.now,
            favorites: favorites,
            window: selection.window,
            slotMinutes: slot,
            colors: context.terminal.colors,
            page: page
        )
        let pageCount = renderer.pages(of: GridRenderer.rooms(of: selection.sessions.filter { $0.start != nil })).count
        if page > max(1, pageCount) {
            throw ClientError.usage(
                "--page \(page): the rooms of this day fit on \(pageCount) page(s) at \(width) columns")
        }
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
