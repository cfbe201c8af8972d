import Foundation

/// One conference day.
///
/// A day's `date` is the calendar day it is named after; sessions after midnight that belong to the
/// same programme day (before the `day_change` hour) keep the day's index but have the next date.
public struct DayInfo: Sendable, Hashable {
    /// The 1-based day number.
    public var index: Int
    /// The calendar day as `yyyy-MM-dd`.
    public var date: String
    /// Local midnight of `date` in the conference time zone.
    public var midnight: Date
    /// When the programme of this day starts, if known.
    public var start: Date?
    /// When the programme of this day ends (often after midnight), if known.
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
