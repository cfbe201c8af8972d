import Foundation

/// How times are shown: in the conference's zone (default), in UTC (`--utc`) or in a chosen zone (`--tz`).
struct TimeDisplay: Sendable {
    enum Zone: Sendable, Hashable {
        case conference
        case fixed(TimeZone)
    }

    var zone: Zone
    /// The zone used when a session has none (the machine's).
    var fallback: TimeZone = .current

    /// The zone for a session of the given conference zone.
    func timeZone(for sessionZone: TimeZone?) -> TimeZone {
        switch zone {
        case .conference: return sessionZone ?? fallback
        case .fixed(let zone): return zone
        }
    }

    static func calendar(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }

    /// `HH:MM` in `zone`.
    static func clock(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(in: zone).dateComponents([.hour, .minute], from: date)
        return pad(parts.hour ?? 0) + ":" + pad(parts.minute ?? 0)
    }

    /// The zone's abbreviation at `date` (`CET`, `UTC`), or its offset (`+01:00`, `+05:30`) when the zone has no
    /// abbreviation: a fixed-offset conference zone, or a zone the tz database does not name.
    static func abbreviation(of zone: TimeZone, at date: Date) -> String {
        if zone.identifier == "UTC" || zone.identifier == "GMT" || zone.identifier == "Etc/UTC" { return "UTC" }
        if let name = ZoneAbbreviations.abbreviation(of: zone, at: date) { return name }
        return ConferenceZone.offsetText(zone.secondsFromGMT(for: date))
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sat 27 Dec` in `zone`.
    static func day(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(in: zone).dateComponents([.weekday, .day, .month], from: date)
        return weekdays[(parts.weekday ?? 1) - 1] + " " + String(parts.day ?? 0) + " " + months[(parts.month ?? 1) - 1]
    }

    /// `YYYY-MM-DD` in `zone`.
    static func isoDay(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(in: zone).dateComponents([.year, .month, .day], from: date)
        return String(parts.year ?? 0) + "-" + pad(parts.month ?? 0) + "-" + pad(parts.day ?? 0)
    }

    /// `Sat 27 Dec 11:00–11:45 CET` for a session.
    func span(_ session: SessionSummary) -> String {
        guard let start = session.start else { return "" }
        let zone = timeZone(for: session.timeZone)
        var text = Self.day(start, in: zone) + " " + Self.clock(start, in: zone)
        if let end = session.end { text += "–" + Self.clock(end, in: zone) }
        return text + " " + Self.abbreviation(of: zone, at: start)
    }

    /// A date value for display: `Sat 27 Dec 11:00 CET`.
    func moment(_ date: Date, sessionZone: TimeZone? = nil) -> String {
        let zone = timeZone(for: sessionZone)
        return Self.day(date, in: zone) + " " + Self.clock(date, in: zone) + " " + Self.abbreviation(of: zone, at: date)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// Parses user-written durations (days are ``DayArgument``s).
enum HumanInput {
    /// `60m`, `2h`, `90s`, `1h30m`, `45` (minutes).
    static func duration(_ text: String) -> TimeInterval? {
        if let minutes = Double(text) { return minutes * 60 }
        var total: TimeInterval = 0
        var number = ""
        var sawUnit = false
        for character in text.lowercased() {
            if character.isNumber || character == "." {
                number.append(character)
            } else {
                guard let value = Double(number) else { return nil }
                switch character {
                case "s": total += value
                case "m": total += value * 60
                case "h": total += value * 3600
                case "d": total += value * 86_400
                default: return nil
                }
                number = ""
                sawUnit = true
            }
        }
        guard number.isEmpty, sawUnit else { return nil }
        return total
    }
}
