import Foundation
import Testing

@testable import CivilDates

@Suite("Civil days")
struct CivilDaysTests {
    @Test(arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017), (1900, 3, 1, -25_508),
        (2024, 12, 27, 20_084), (1, 1, 1, -719_162), (0, 3, 1, -719_468), (-1, 12, 31, -719_529),
        (9999, 12, 31, 2_932_896),
    ])
    func knownDays(year: Int, month: Int, day: Int, days: Int) {
        #expect(CivilDays.days(year: year, month: month, day: day) == days)
        #expect(CivilDays.date(days: days) == (year, month, day))
    }

    /// Foundation's calendar is Julian before October 1582, so the comparison starts in 1600.
    @Test func dayNumbersAgreeWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for days in stride(from: CivilDays.days(year: 1600, month: 1, day: 1), through: 200_000, by: 367) {
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let civil = CivilDays.date(days: days)
            #expect(civil == (parts.year!, parts.month!, parts.day!), "day \(days)")
            #expect(CivilDays.days(year: civil.year, month: civil.month, day: civil.day) == days)
        }
    }

    @Test func everyDayOfFourCenturiesRoundTrips() {
        var expected = CivilDays.days(year: 1600, month: 1, day: 1)
        for year in 1600..<2000 {
            for month in 1...12 {
                for day in 1...CivilDays.daysIn(month: month, year: year) {
                    #expect(CivilDays.days(year: year, month: month, day: day) == expected)
                    expected += 1
                }
            }
        }
        #expect(expected - CivilDays.days(year: 1600, month: 1, day: 1) == 146_097)
    }

    @Test func leapYearsAndMonthLengths() {
        #expect(CivilDays.isLeapYear(2000) && CivilDays.isLeapYear(2024) && CivilDays.isLeapYear(-4))
        #expect(!CivilDays.isLeapYear(1900) && !CivilDays.isLeapYear(2023))
        #expect(CivilDays.daysIn(month: 2, year: 1900) == 28 && CivilDays.daysIn(month: 2, year: 2000) == 29)
        #expect([4, 6, 9, 11].allSatisfy { CivilDays.daysIn(month: $0, year: 2025) == 30 })
        #expect(CivilDays.floorDivide(-1, 86_400) == -1 && CivilDays.floorDivide(86_399, 86_400) == 0)
    }
}
