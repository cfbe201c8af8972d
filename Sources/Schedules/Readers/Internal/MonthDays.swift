/// Weekday arithmetic within a month.
enum MonthDays {
    /// The `ordinal`-th (1-based; negative counts from the end) ISO `weekday` of the month, if it exists.
    static func nthWeekday(_ ordinal: Int, _ weekday: Int, year: Int, month: Int) -> LocalDate? {
        let days = all(weekday, year: year, month: month)
        if ordinal > 0 { return ordinal <= days.count ? days[ordinal - 1] : nil }
        if ordinal < 0 { return -ordinal <= days.count ? days[days.count + ordinal] : nil }
        return nil
    }

    /// Every ISO `weekday` in the month.
    static func all(_ weekday: Int, year: Int, month: Int) -> [LocalDate] {
        let first = LocalDate(year: year, month: month, day: 1)
        let shift = (weekday - first.isoWeekday + 7) % 7
        var result: [LocalDate] = []
        var day = 1 + shift
        let length = LocalDate.daysIn(month: month, year: year)
        while day <= length {
            result.append(LocalDate(year: year, month: month, day: day))
            day += 7
        }
        return result
    }
}
