import AlmanacWire
import ArgumentParser
import Foundation

struct NowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract: "Sessions running now.",
        discussion: """
            A session runs now when it started at or before now and ends after now.

            EXAMPLES:
              almanac now
              almanac now --conference 38c3 --at 2024-12-28T11:00+01:00
            """
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "Only this conference (acronym).") var conference: String?

    func run() throws {
        let context = CommandContext(options: options)
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
    @Option(help: "Only this conference (acronym).") var conference: String?

    func validate() throws {
        guard HumanInput.duration(within) != nil else {
            throw ValidationError("--within needs a duration such as 45m, 2h or 1h30m, not \(within)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options)
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
        abstract: "The sessions of one day.",
        discussion: """
            DATE is YYYY-MM-DD, today, tomorrow or yesterday (default today), in the conference's time zone.

            EXAMPLES:
              almanac day
              almanac day 2024-12-28 --conference 38c3 --format csv
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The day.") var date = "today"
    @Option(help: "Only this conference (acronym).") var conference: String?

    func validate() throws {
        guard HumanInput.dayStart(date, now: Date(), in: .current) != nil else {
            throw ValidationError("DATE must be YYYY-MM-DD, today, tomorrow or yesterday, not \(date)")
        }
    }

    func run() throws {
        let context = CommandContext(options: options)
        let sessions = try DayRange.sessions(on: date, conference: conference, context: context).sessions
        SessionOutput.print(sessions, context: context)
    }
}

/// The sessions starting on a day in the day's zone.
enum DayRange {
    static func sessions(
        on day: String,
        conference: String?,
        context: CommandContext
    ) throws -> (sessions: [SessionSummary], zone: TimeZone, start: Date) {
        let zone = try context.dayZone(conference: conference)
        guard let start = HumanInput.dayStart(day, now: context.now, in: zone) else {
            throw ClientError.usage("cannot read the day \(day)")
        }
        let end = TimeDisplay.calendar(in: zone).date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        let sessions = try context.sessions(
            predicate: "start >= $FROM AND start < $TO",
            variables: ["FROM": .date(start), "TO": .date(end)],
            conference: conference
        )
        return (sessions, zone, start)
    }
}

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search sessions by text (the model's SearchSessions template).",
        discussion: """
            EXAMPLES:
              almanac search "memory safety"
              almanac search nix --format json
            """
    )

    @OptionGroup var options: ClientOptions
    @Argument(help: "The text to look for.") var text: String
    @Option(help: "The most sessions to show.") var limit: Int?

    func run() throws {
        let context = CommandContext(options: options)
        let template = WireRequest.Template(
            name: "SearchSessions",
            variables: ["TEXT": .string(text)],
            sort: [.init(key: "start")],
            limit: limit,
            properties: SessionSummary.properties
        )
        let answer = try context.send(.template(template), as: WireResponse.Fetch.self)
        try SessionOutput.print(answer.objects, context: context)
    }
}
