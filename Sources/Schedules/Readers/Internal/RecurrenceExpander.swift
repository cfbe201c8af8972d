/// Expands a recurrence rule into local start dates, bounded by count, UNTIL, a horizon and an instance cap.
struct RecurrenceExpander {
    enum Stop: Equatable {
        /// The rule ran out by itself (COUNT, UNTIL).
        case complete
        /// The horizon cut an unbounded (or long) rule.
        case horizon
        /// The instance cap was reached.
        case instanceLimit
    }

    var rule: RecurrenceRule
    /// The first instance (DTSTART) as a wall clock.
    var start: LocalDateTime
    /// Converts wall clocks to instants (for UNTIL in UTC and the horizon).
    var toInstant: (LocalDateTime) -> Int64
    var maxInstances: Int
    /// The latest instant an instance may start at.
    var horizon: Int64

    /// The instances in order, DTSTART first (RFC 5545 counts it even when it does not match the rule).
    func expand() -> (instances: [LocalDateTime], stop: Stop) {
        var result: [LocalDateTime] = [start]
        var periods = 0
        let maxPeriods = 200_000
        let time = start.secondOfDay
        while periods < maxPeriods {
            let candidates = dates(inPeriod: periods)
            periods += 1
            for date in candidates {
                let local = LocalDateTime(date: date, secondOfDay: time)
                guard local > start else { continue }
                if let count = rule.count, result.count >= count { return (result, .complete) }
                if let until = rule.until {
                    if until.isDateOnly {
                        if local.date > until.local.date { return (result, .complete) }
                    } else if let untilUTC = until.secondsSinceEpoch {
                        if toInstant(local) > untilUTC { return (result, .complete) }
                    } else if local > until.local {
                        return (result, .complete)
                    }
                }
                if toInstant(local) > horizon { return (result, .horizon) }
                if result.count >= maxInstances { return (result, .instanceLimit) }
                result.append(local)
            }
            if let count = rule.count, result.count >= count { return (result, .complete) }
        }
        return (result, .horizon)
    }

    /// The candidate dates of the `period`-th period after the one containing DTSTART, in order.
    private func dates(inPeriod period: Int) -> [LocalDate] {
        let step = period * rule.interval
        switch rule.frequency {
        case .daily, .hourly, .minutely, .secondly:
            let date = start.date.adding(days: step)
            return matchesFilters(date) ? [date] : []
        case .weekly:
            let offset = (start.date.isoWeekday - rule.weekStart + 7) % 7
            let weekStart = start.date.adding(days: -offset + step * 7)
            let weekdays = rule.byDay.isEmpty ? [start.date.isoWeekday] : rule.byDay.map(\.weekday)
            return (0..<7).map { weekStart.adding(days: $0) }
                .filter {
                    weekdays.contains($0.isoWeekday) && (rule.byMonth.isEmpty || rule.byMonth.contains($0.month))
                }
        case .monthly:
            let first = start.date.firstOfMonth(adding: step)
            guard rule.byMonth.isEmpty || rule.byMonth.contains(first.month) else { return [] }
            return daysInMonth(year: first.year, month: first.month)
        case .yearly:
            let year = start.date.year + step
            let months = rule.byMonth.isEmpty ? [start.date.month] : rule.byMonth.sorted()
            if rule.byDay.isEmpty && rule.byMonthDay.isEmpty {
                return months.compactMap {
                    let date = LocalDate(year: year, month: $0, day: start.date.day)
                    return date.isValid ? date : nil
                }
            }
            return months.flatMap { daysInMonth(year: year, month: $0) }
        }
    }

    private func daysInMonth(year: Int, month: Int) -> [LocalDate] {
        let length = LocalDate.daysIn(month: month, year: year)
        var days = Set<LocalDate>()
        if !rule.byDay.isEmpty {
            for entry in rule.byDay {
                if let ordinal = entry.ordinal {
                    if let date = MonthDays.nthWeekday(ordinal, entry.weekday, year: year, month: month) {
                        days.insert(date)
                    }
                } else {
                    days.formUnion(MonthDays.all(entry.weekday, year: year, month: month))
                }
            }
            if !rule.byMonthDay.isEmpty {
                let allowed = Set(rule.byMonthDay.map { $0 > 0 ? $0 : length + 1 + $0 })
                days = days.filter { allowed.contains($0.day) }
            }
        } else if !rule.byMonthDay.isEmpty {
            for day in rule.byMonthDay {
                let resolved = day > 0 ? day : length + 1 + day
                if resolved >= 1 && resolved <= length {
                    days.insert(LocalDate(year: year, month: month, day: resolved))
                }
            }
        } else if start.date.day <= length {
            days.insert(LocalDate(year: year, month: month, day: start.date.day))
        }
        return days.sorted()
    }

    private func matchesFilters(_ date: LocalDate) -> Bool {
        if !rule.byMonth.isEmpty && !rule.byMonth.contains(date.month) { return false }
        if !rule.byDay.isEmpty && !rule.byDay.contains(where: { $0.weekday == date.isoWeekday }) { return false }
        if !rule.byMonthDay.isEmpty {
            let length = LocalDate.daysIn(month: date.month, year: date.year)
            if !rule.byMonthDay.contains(where: { ($0 > 0 ? $0 : length + 1 + $0) == date.day }) { return false }
        }
        return true
    }
}
