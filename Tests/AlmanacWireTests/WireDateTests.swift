import Foundation
import Testing

@testable import AlmanacWire

@Suite struct WireDateTests {
    @Test func formatsUTCWithZ() {
        let date = Date(timeIntervalSince1970: 1_735_295_400)  // 2024-12-27T10:30:00Z
        #expect(WireDate.string(from: date) == "2024-12-27T10:30:00Z")
    }

    @Test func formatsWithTheZonesOffset() throws {
        let date = Date(timeIntervalSince1970: 1_735_295_400)
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(WireDate.string(from: date, in: berlin) == "2024-12-27T11:30:00+01:00")
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(WireDate.string(from: date, in: newYork) == "2024-12-27T05:30:00-05:00")
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        #expect(WireDate.string(from: date, in: kolkata) == "2024-12-27T16:00:00+05:30")
    }

    @Test func writesMillisecondsOnlyWhenPresent() {
        #expect(WireDate.string(from: Date(timeIntervalSince1970: 0.25)) == "1970-01-01T00:00:00.250Z")
        #expect(WireDate.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test(arguments: [
        ("2024-12-27T10:30:00Z", 1_735_295_400.0),
        ("2024-12-27T11:30:00+01:00", 1_735_295_400.0),
        ("2024-12-27T11:30:00+0100", 1_735_295_400.0),
        ("2024-12-27T11:30:00+01", 1_735_295_400.0),
        ("2024-12-27 05:30:00-05:00", 1_735_295_400.0),
        ("2024-12-27T10:30Z", 1_735_295_400.0),
        ("2024-12-27T10:30:00.5Z", 1_735_295_400.5),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
    ])
    func parses(text: String, seconds: Double) {
        #expect(WireDate.date(from: text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "2024-12-27T10:30:00", "2024-12-27", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-12-27T10:30:00Zx",
        "24-12-27T10:30:00Z", "2024-12-27T25:00:00Z", "", "2024-12-27T10:30:00.Z",
    ])
    func rejects(text: String) {
        #expect(WireDate.date(from: text) == nil)
    }

    @Test func roundTripsAcrossManyDates() {
        var seconds: Int64 = -5_000_000_000
        while seconds < 5_000_000_000 {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(WireDate.date(from: WireDate.string(from: date)) == date)
            seconds += 86_400 * 37 + 3_601
        }
    }
}
