/// The offsets of a `VTIMEZONE` whose TZID is not an IANA name, from its STANDARD and DAYLIGHT parts.
///
/// Supports what calendar programs emit: each observance has a `DTSTART`, `TZOFFSETFROM`, `TZOFFSETTO`
/// and optionally a yearly `RRULE` with `BYMONTH` and `BYDAY` (such as `-1SU` or `2SU`) and `UNTIL`.
struct VTimeZoneRules: Sendable {
    struct Observance: Sendable {
        var start: LocalDateTime
        var offsetFrom: Int
        var offsetTo: Int
        var month: Int?
        var weekday: Int?
        var ordinal: Int?
        var until: Int64?
    }

    var observances: [Observance]

    /// Parses the component; nil when no observance is usable.
    init?(component: ICalendarComponent) {
        var observances: [Observance] = []
        for child in component.children where child.name == "STANDARD" || child.name == "DAYLIGHT" {
            guard let startText = child.property("DTSTART")?.value,
                let start = TimestampParser.parseICalendar(startText),
                let to = child.property("TZOFFSETTO").flatMap({ Self.parseOffset($0.value) })
            else { continue }
            let from = child.property("TZOFFSETFROM").flatMap { Self.parseOffset($0.value) } ?? to
            var observance = Observance(start: start.local, offsetFrom: from, offsetTo: to)
            if let rule = child.property("RRULE")?.value, let parsed = try? RecurrenceRule(parsing: rule),
                parsed.frequency == .yearly
            {
                observance.month = parsed.byMonth.first ?? start.local.date.month
                if let day = parsed.byDay.first {
                    observance.weekday = day.weekday
                    observance.ordinal = day.ordinal ?? 1
                }
                if let until = parsed.until {
                    observance.until = until.secondsSinceEpoch ?? until.local.secondsSinceEpoch
                }
            }
            observances.append(observance)
        }
        guard !observances.isEmpty else { return nil }
        self.observances = observances
    }

    /// `+HHMM`, `-HHMM` or `+HHMMSS` as seconds east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let bytes = Array(text.trimmingSpaces.utf8)
        guard bytes.count == 5 || bytes.count == 7, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-")
        else { return nil }
        var scanner = DigitScanner(Array(bytes[1...]))
        guard let hours = scanner.number(digits: 2), let minutes = scanner.number(digits: 2), hours < 24, minutes < 60
        else { return nil }
        let seconds = bytes.count == 7 ? (scanner.number(digits: 2) ?? 0) : 0
        let value = hours * 3600 + minutes * 60 + seconds
        return bytes[0] == UInt8(ascii: "-") ? -value : value
    }

    /// Seconds east of UTC at the instant: the offset of the observance with the latest onset before it.
    func offset(atUTC seconds: Int64) -> Int {
        let year = LocalDateTime(secondsSinceEpoch: seconds).date.year
        var best: (onset: Int64, offset: Int)? = nil
        var earliest: (onset: Int64, offset: Int)? = nil
        for observance in observances {
            let first = observance.start.secondsSinceEpoch - Int64(observance.offsetFrom)
            if earliest == nil || first < earliest!.onset { earliest = (first, observance.offsetFrom) }
            for candidateYear in [year, year - 1] {
                guard let onset = onset(of: observance, in: candidateYear), onset <= seconds, onset >= first else {
                    continue
                }
                if let until = observance.until, onset > until { continue }
                if best == nil || onset > best!.onset { best = (onset, observance.offsetTo) }
                break
            }
        }
        return best?.offset ?? earliest?.offset ?? 0
    }

    private func onset(of observance: Observance, in year: Int) -> Int64? {
        guard let month = observance.month else {
            return year == observance.start.date.year || year == observance.start.date.year + 1
                ? observance.start.secondsSinceEpoch - Int64(observance.offsetFrom) : nil
        }
        let date: LocalDate
        if let weekday = observance.weekday, let ordinal = observance.ordinal {
            guard let day = MonthDays.nthWeekday(ordinal, weekday, year: year, month: month) else { return nil }
            date = day
        } else {
            date = LocalDate(year: year, month: month, day: observance.start.date.day)
            guard date.isValid else { return nil }
        }
        let local = LocalDateTime(date: date, secondOfDay: observance.start.secondOfDay)
        return local.secondsSinceEpoch - Int64(observance.offsetFrom)
    }
}
