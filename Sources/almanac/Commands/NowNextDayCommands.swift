import AlmanacWire
import ArgumentParser
import Foundation

/// The help of `--conference`, the same on every command.
let conferenceHelp = ArgumentHelp(
    "Only this conference: its name (acronym), title or file name, in any case.", valueName: "name")

struct NowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Sessions running now.",
        discussion: """
            A session runs now when it started at or before now and ends after now. With --day, the whole \
            conference day that holds now is listed: at a congress whose day runs from 10:00 to 04:00, at 01:30 \
            that is the day that started the morning before.

            EXAMPLES:
              almanac now
              almanac now --conference ssd26 --at 2026-11-23T10:00+01:00
              almanac now --day --conference "Swift Server Days 2026"
            """
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var filter: SessionFilterOptions
    @Flag(name: .customLong("day"), help: "List the whole conference day that holds now, not only what runs.")
    var wholeDay = false

    func run() throws {
        let context = CommandContext(options: options, conference: filter.conference)
        let conference = try context.conferenceName()
        let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
        if wholeDay {
            let day = try DayRange.sessions(on: "today", conference: conference, context: context)
            SessionOutput.print(
                sessionFilter.apply(day.sessions), context: context, empty: "No sessions on \(day.date).")
            return
        }
        let sessions = try context.sessions(
            predicate: "start <= $NOW AND end > $NOW",
            variables: ["NOW": .date(context.now)],
            conference: conference
        )
        let running = sessionFilter.apply(sessions)
        if running.isEmpty, options.format == .table {
            context.write(try Self.nothingRunning(context: context, conference: conference, filter: sessionFilter))
            return
        }
        SessionOutput.print(running, context: context)
    }

    /// `Nothing is running at Sat 28 Dec 10:40 CET. Next: TITLE, Sat 28 Dec 11:00–12:00 CET in ROOM.`
    static func nothingRunning(context: CommandContext, conference: String?, filter: SessionFilter)
        throws(ClientError) -> String
    {
        let upcoming = try context.sessions(
            predicate: "start > $NOW", variables: ["NOW": .date(context.now)], conference: conference,
            limit: filter.isEmpty ? 1 : nil)
        let zone = context.display.timeZone(for: try context.dayZone(conference: conference))
        let at =
            TimeDisplay.day(context.now, in: zone) + " " + TimeDisplay.clock(context.now, in: zone) + " "
            + TimeDisplay.abbreviation(of: zone, at: context.now)
        var text = "Nothing is running at \(at)."
        if let next = filter.apply(upcoming).first {
            text += " Next: \(next.title), \(context.display.span(next))"
            if let room = next.room { text += " in \(room)" }
            if conference == nil, let name = next.conference { text += " (\(name))" }
            text += "."
        } else {
            text += " Nothing starts later either."
        }
        return text + "\n"
    }
}

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Sessions starting soon (running ones are shown by `now`).",
        discussion: """
            EXAMPLES:
              almanac next
              almanac next --within 2h --conference ssd26
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: ArgumentHelp("How far ahead to look: 60m, 2h, 1h30m.", valueName: "duration"))
    var within = "60m"
    @OptionGroup var filter: SessionFilterOptions

    func validate() throws {
        guard HumanInput.duration(within) != nil else {
            throw ValidationError("--within needs a duration such as 45m, 2h or 1h30m, not \(within)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: filter.conference)
        let conference = try context.conferenceName()
        let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
        let horizon = context.now.addingTimeInterval(HumanInput.duration(within) ?? 3600)
        let sessions = try context.sessions(
            predicate: "start > $NOW AND start <= $UNTIL",
            variables: ["NOW": .date(context.now), "UNTIL": .date(horizon)],
            conference: conference
        )
        SessionOutput.print(
            sessionFilter.apply(sessions), context: context, empty: "Nothing starts in the next \(within).")
    }
}

struct DayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "day",
        abstract: "The sessions of one conference day.",
        discussion: """
            DATE is YYYY-MM-DD, today, tomorrow or yesterday (default today). Days are the conference's: a day \
            runs from its start to its end as the schedule gives them (at a congress, 10:00 to about 04:00 the \
            next morning), and a session belongs to the day whose window holds its start. today is the day whose \
            window holds now (else the date of now minus 6 hours in the conference's zone). --utc and --tz change \
            how times are shown, never which day a session is on.

            EXAMPLES:
              almanac day
              almanac day 2026-11-23 --conference ssd26 --format csv
              almanac day tomorrow --conference swift-server-days-2026.xml --tz America/New_York
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The day.") var date = "today"
    @OptionGroup var filter: SessionFilterOptions

    func validate() throws {
        guard DayArgument(date) != nil else {
            throw ValidationError("DATE must be YYYY-MM-DD, today, tomorrow or yesterday, not \(date)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: filter.conference)
        let conference = try context.conferenceName()
        let sessionFilter = try SessionFilter.make(filter, conference: conference, context: context)
        let day = try DayRange.sessions(on: date, conference: conference, context: context)
        SessionOutput.print(sessionFilter.apply(day.sessions), context: context, empty: "No sessions on \(day.date).")
    }
}
