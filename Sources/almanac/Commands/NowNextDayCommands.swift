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
              almanac now --conference 38c3 --at 2024-12-28T11:00+01:00
              almanac now --day --conference "38th Chaos Communication Congress"
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: conferenceHelp) var conference: String?
    @Flag(name: .customLong("day"), help: "List the whole conference day that holds now, not only what runs.")
    var wholeDay = false

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let conference = try context.conferenceName()
        if wholeDay {
            let day = try DayRange.sessions(on: "today", conference: conference, context: context)
            SessionOutput.print(day.sessions, context: context)
            return
        }
        let sessions = try context.sessions(
            predicate: "start <= $NOW AND end > $NOW",
            variables: ["NOW": .date(context.now)],
            conference: conference
        )
        SessionOutput.print(sessions, context: context)
    }
}

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Sessions starting soon (running ones are shown by `now`).",
        discussion: """
            EXAMPLES:
              almanac next
              almanac next --within 2h --conference 38c3
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: ArgumentHelp("How far ahead to look: 60m, 2h, 1h30m.", valueName: "duration"))
    var within = "60m"
    @Option(help: conferenceHelp) var conference: String?

    func validate() throws {
        guard HumanInput.duration(within) != nil else {
            throw ValidationError("--within needs a duration such as 45m, 2h or 1h30m, not \(within)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let conference = try context.conferenceName()
        let horizon = context.now.addingTimeInterval(HumanInput.duration(within) ?? 3600)
        let sessions = try context.sessions(
            predicate: "start > $NOW AND start <= $UNTIL",
            variables: ["NOW": .date(context.now), "UNTIL": .date(horizon)],
            conference: conference
        )
        SessionOutput.print(sessions, context: context)
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
              almanac day 2024-12-28 --conference 38c3 --format csv
              almanac day tomorrow --conference 38C3.xml --tz America/New_York
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The day.") var date = "today"
    @Option(help: conferenceHelp) var conference: String?

    func validate() throws {
        guard DayArgument(date) != nil else {
            throw ValidationError("DATE must be YYYY-MM-DD, today, tomorrow or yesterday, not \(date)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options, conference: conference)
        let day = try DayRange.sessions(on: date, conference: try context.conferenceName(), context: context)
        SessionOutput.print(day.sessions, context: context)
    }
}
