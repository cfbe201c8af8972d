import AlmanacWire
import Foundation

/// A day as the user names it: a date (`2024-12-28`) or a day counted from the current conference day (`today`,
/// `tomorrow`, `yesterday`).
enum DayArgument: Sendable, Hashable {
    /// `YYYY-MM-DD`, a conference-local date.
    case date(String)
    /// Days after the conference day that holds now (0 today, 1 tomorrow, -1 yesterday).
    case relative(Int)

    init?(_ text: String) {
        switch text.lowercased() {
        case "today": self = .relative(0)
        case "tomorrow": self = .relative(1)
        case "yesterday": self = .relative(-1)
        default:
            guard let date = ConferenceDays.normalized(text) else { return nil }
            self = .date(date)
        }
    }
}

/// Conference days: a day is a window of time with a date (`Day.start`, `Day.end`, `Day.date` in the conference's
/// zone), such as 2024-12-27 10:00 to 2024-12-28 06:00 at a congress whose nights run past midnight. A session
/// belongs to the day whose window holds its start. Where the daemon knows no day (personal sessions, or between
/// conferences), a day runs from 06:00 to 06:00 in the day zone.
enum ConferenceDays {
    /// Where a day without a window of its own changes: 06:00.
    static let dayChange: TimeInterval = 6 * 3600

    private static var utcCalendar: Calendar { TimeDisplay.calendar(in: ConferenceZone.utc) }

    /// `text` as a valid `YYYY-MM-DD` date, or nil.
    static func normalized(_ text: String) -> String? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = utcCalendar.date(from: DateComponents(year: year, month: month, day: day)),
            utcCalendar.component(.day, from: date) == day, utcCalendar.component(.month, from: date) == month
        else { return nil }
        return TimeDisplay.isoDay(date, in: ConferenceZone.utc)
    }

    /// The date `days` after `date` (`YYYY-MM-DD`).
    static func date(_ date: String, plus days: Int) -> String? {
        guard let normalized = normalized(date), days != 0 else { return normalized(date) }
        let parts = normalized.split(separator: "-").compactMap { Int($0) }
        guard let start = utcCalendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
            let moved = utcCalendar.date(byAdding: .day, value: days, to: start)
        else { return nil }
        return TimeDisplay.isoDay(moved, in: ConferenceZone.utc)
    }

    /// The date of the day that holds `now` when no conference day does: the local date of `now` minus 6 hours,
    /// so that 01:30 still belongs to the evening before.
    static func fallbackDate(now: Date, in zone: TimeZone) -> String {
        TimeDisplay.isoDay(now.addingTimeInterval(-dayChange), in: zone)
    }

    /// 06:00 on `date` to 06:00 the next morning in `zone`: the window of a day the daemon has no window for.
    static func fallbackWindow(of date: String, in zone: TimeZone) -> DateInterval? {
        guard let normalized = normalized(date) else { return nil }
        let parts = normalized.split(separator: "-").compactMap { Int($0) }
        let calendar = TimeDisplay.calendar(in: zone)
        guard let midnight = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
            let next = calendar.date(byAdding: .day, value: 1, to: midnight)
        else { return nil }
        return DateInterval(start: midnight.addingTimeInterval(dayChange), end: next.addingTimeInterval(dayChange))
    }

    /// The date of the current day among `Day` objects whose window holds now: the one that started first.
    static func currentDate(among days: [WireObject]) -> String? {
        days.compactMap { day -> (Date, String)? in
            guard let date = day.values["date"]?.stringValue.flatMap(normalized) else { return nil }
            return (day.values["start"]?.dateValue ?? .distantFuture, date)
        }
        .min { $0.0 < $1.0 }?.1
    }

    /// The time the `Day` objects of one date cover together (several conferences may share a date).
    static func window(of days: [WireObject]) -> DateInterval? {
        let starts = days.compactMap { $0.values["start"]?.dateValue }
        let ends = days.compactMap { $0.values["end"]?.dateValue }
        guard let start = starts.min(), let end = ends.max(), end > start else { return nil }
        return DateInterval(start: start, end: end)
    }
}
