import Foundation
import Testing

@testable import Schedules

@Suite struct ZoneConverterTests {
    let berlin = ZoneConverter(timeZone: TimeZone(identifier: "Europe/Berlin")!)

    func local(_ text: String) -> LocalDateTime { TimestampParser.parseISO(text)!.local }

    @Test func wallClockInSpringGapUsesOffsetBeforeTheGap() {
        #expect(berlin.instant(for: local("2024-03-31T02:30:00")) == instant("2024-03-31T01:30:00Z").unixSeconds)
    }

    @Test func wallClockInAutumnOverlapPicksTheEarlierInstant() {
        #expect(berlin.instant(for: local("2024-10-27T02:30:00")) == instant("2024-10-27T00:30:00Z").unixSeconds)
    }

    @Test func ordinaryTimesRoundTrip() {
        let wall = local("2024-07-01T12:34:56")
        #expect(berlin.local(atUTC: berlin.instant(for: wall)) == wall)
    }

    @Test func civilDateArithmetic() {
        let date = LocalDate(year: 2024, month: 2, day: 29)
        #expect(LocalDate(daysSinceEpoch: date.daysSinceEpoch) == date)
        #expect(date.isoWeekday == 4)
        #expect(date.adding(days: 1).isoString == "2024-03-01")
        #expect(LocalDate(year: 2023, month: 2, day: 29).isValid == false)
        #expect(MonthDays.nthWeekday(-1, 5, year: 2024, month: 3) == LocalDate(year: 2024, month: 3, day: 29))
    }
}

extension Date {
    var unixSeconds: Int64 { Int64(timeIntervalSince1970) }
}
