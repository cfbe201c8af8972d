import CivilDates

/// A proleptic Gregorian calendar day with no time zone.
struct LocalDate: Hashable, Comparable, Sendable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Whether the fields name a real day.
    var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
            && (-9999...99999).contains(year)
    }

    static func daysIn(month: Int, year: Int) -> Int { CivilDays.daysIn(month: month, year: year) }

    /// Days since 1970-01-01.
    var daysSinceEpoch: Int { CivilDays.days(year: year, month: month, day: day) }

    /// The day `days` after 1970-01-01.
    init(daysSinceEpoch days: Int) {
        let (year, month, day) = CivilDays.date(days: days)
        self.init(year: year, month: month, day: day)
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    var isoWeekday: Int {
        let days = daysSinceEpoch  // 1970-01-01 was a Thursday (4)
        return ((days % 7) + 7 + 3) % 7 + 1
    }

    func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// The first day of the month `months` after this one.
    func firstOfMonth(adding months: Int) -> LocalDate {
        let total = year * 12 + (month - 1) + months
        let newYear = total >= 0 ? total / 12 : (total - 11) / 12
        return LocalDate(year: newYear, month: total - newYear * 12 + 1, day: 1)
    }

    /// `yyyy-MM-dd`.
    var isoString: String {
        pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// A wall-clock date and time with no time zone.
struct LocalDateTime: Hashable, Comparable, Sendable {
    var date: LocalDate
    /// Seconds since local midnight, 0..<86400 (a leap second 60 is folded into 59).
    var secondOfDay: Int

    init(date: LocalDate, secondOfDay: Int = 0) {
        self.date = date
        self.secondOfDay = secondOfDay
    }

    /// The wall clock that UTC shows `seconds` after the epoch.
    init(secondsSinceEpoch seconds: Int64) {
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        self.init(date: LocalDate(daysSinceEpoch: days), secondOfDay: Int(seconds - Int64(days) * 86_400))
    }

    /// Seconds since the epoch if this wall clock were UTC.
    var secondsSinceEpoch: Int64 { Int64(date.daysSinceEpoch) * 86_400 + Int64(secondOfDay) }

    var hour: Int { secondOfDay / 3600 }
    var minute: Int { secondOfDay / 60 % 60 }
    var second: Int { secondOfDay % 60 }

    func adding(seconds: Int64) -> LocalDateTime { LocalDateTime(secondsSinceEpoch: secondsSinceEpoch + seconds) }

    /// `yyyyMMdd'T'HHmmss`.
    var compactStamp: String {
        pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2) + "T" + pad(hour, 2) + pad(minute, 2)
            + pad(second, 2)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss`.
    var isoString: String {
        date.isoString + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2)
    }

    static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        lhs.secondsSinceEpoch < rhs.secondsSinceEpoch
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let text = String(abs(value))
    let padded = text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    return value < 0 ? "-" + padded : padded
}
