import Foundation

/// One conference day.
///
/// A day is a window of time, usually from the morning to the night (often past midnight): `start` to `end`. A
/// session belongs to the day whose window holds its start. `date` is the calendar date of `start` in the
/// conference zone; a session at 01:30 belongs to the day before when that day's window runs to 06:00.
public struct DayInfo: Sendable, Hashable {
    /// The 1-based day number.
    public var index: Int
    /// The calendar day as `yyyy-MM-dd`.
    public var date: String
    /// Local midnight of `date` in the conference time zone.
    public var midnight: Date
    /// When the day's window starts: the file's `<day start>`, else the day change (configured, else the file's
    /// `day_change`, else 06:00) on `date`. Readers always set it.
    public var start: Date?
    /// When the day's window ends (often after midnight): the file's `<day end>`, else the day change on the next
    /// date. Readers always set it.
    public var end: Date?

    /// Creates a day.
    public init(index: Int, date: String, midnight: Date, start: Date? = nil, end: Date? = nil) {
        self.index = index
        self.date = date
        self.midnight = midnight
        self.start = start
        self.end = end
    }
}
