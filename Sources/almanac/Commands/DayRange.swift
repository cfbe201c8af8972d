import AlmanacWire
import Foundation

/// The sessions of one conference day.
struct DaySelection {
    /// The conference-local date (`YYYY-MM-DD`).
    var date: String
    /// The zone the day is read in (the conference's, else the machine's).
    var zone: TimeZone
    /// The day's window as the daemon's `Day` objects give it (nil when it knows no day of that date).
    var window: DateInterval?
    var sessions: [SessionSummary]
}

/// Finds conference days and their sessions.
enum DayRange {
    /// The sessions of the day `text` names (see ``DayArgument``): those whose `day.date` is the date, and those
    /// without a day (personal sessions) that start between 06:00 that day and 06:00 the next in the day zone.
    ///
    /// - Parameters:
    ///   - conference: A conference name as ``CommandContext/conferenceName()`` resolves it.
    ///   - properties: The session key paths to fetch.
    static func sessions(
        on text: String,
        conference: String?,
        context: CommandContext,
        properties: [String] = SessionSummary.properties
    ) throws -> DaySelection {
        guard let argument = DayArgument(text) else {
            throw ClientError.usage("the day must be YYYY-MM-DD, today, tomorrow or yesterday, not \(text)")
        }
        let zone = try context.dayZone(conference: conference)
        let date = try self.date(argument, conference: conference, zone: zone, context: context)
        let days = try context.send(
            .fetch(dayFetch("date == $DAY", ["DAY": .string(date)], conference)), as: WireResponse.Fetch.self)
        let fallback =
            ConferenceDays.fallbackWindow(of: date, in: zone) ?? DateInterval(start: context.now, duration: 86_400)
        let sessions = try context.sessions(
            predicate: "day.date == $DAY OR (day == nil AND start >= $FROM AND start < $TO)",
            variables: ["DAY": .string(date), "FROM": .date(fallback.start), "TO": .date(fallback.end)],
            conference: conference,
            properties: properties
        )
        return DaySelection(date: date, zone: zone, window: ConferenceDays.window(of: days.objects), sessions: sessions)
    }

    /// The date `argument` names: itself, or counted from the conference day whose window holds now (else from
    /// the local date of now minus 6 hours in `zone`).
    static func date(
        _ argument: DayArgument,
        conference: String?,
        zone: TimeZone,
        context: CommandContext
    ) throws(ClientError) -> String {
        switch argument {
        case .date(let date):
            return date
        case .relative(let offset):
            let now = context.now
            let fetch = dayFetch("start <= $NOW AND end > $NOW", ["NOW": .date(now)], conference)
            let holding = try context.send(.fetch(fetch), as: WireResponse.Fetch.self).objects
            let today = ConferenceDays.currentDate(among: holding) ?? ConferenceDays.fallbackDate(now: now, in: zone)
            return ConferenceDays.date(today, plus: offset) ?? today
        }
    }

    private static func dayFetch(_ predicate: String, _ variables: JSONObject, _ conference: String?)
        -> WireRequest.Fetch
    {
        var predicate = predicate
        var variables = variables
        if let conference {
            predicate = "(\(predicate)) AND conference.acronym == $CONFERENCE"
            variables["CONFERENCE"] = .string(conference)
        }
        return WireRequest.Fetch(
            entity: "Day", predicate: predicate, variables: variables, sort: [.init(key: "start")],
            properties: ["date", "start", "end", "conference.acronym"]
        )
    }
}
