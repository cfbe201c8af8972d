import Foundation
import Testing

@testable import Schedules

/// Conference days are windows, not civil dates (ReadingRules.md, "Days").
@Suite struct ConferenceDayTests {
    @Test func aSessionAfterMidnightBelongsToTheDayWhoseWindowHoldsIt() throws {
        let data = frabXML(
            days: """
                <day index="1" date="2024-12-27" start="2024-12-27T11:00:00+01:00" end="2024-12-28T04:00:00+01:00">
                  <room name="Saal 1">
                    <event id="1"><date>2024-12-27T23:00:00+01:00</date><duration>01:00</duration><title>Late</title></event>
                    <event id="2"><date>2024-12-28T01:30:00+01:00</date><duration>00:30</duration><title>Night</title></event>
                  </room>
                </day>
                <day index="2" date="2024-12-28" start="2024-12-28T11:00:00+01:00" end="2024-12-29T04:00:00+01:00">
                  <room name="Saal 1">
                    <event id="3"><date>2024-12-28T02:30:00+01:00</date><duration>00:30</duration><title>Misfiled</title></event>
                    <event id="4"><date>2024-12-28T11:00:00+01:00</date><duration>00:30</duration><title>Day 2</title></event>
                  </room>
                </day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.days.map(\.date) == ["2024-12-27", "2024-12-28"])
        let night = document.sessions[1]
        #expect(wallClock(night.start, in: document) == "2024-12-28T01:30:00+01:00")
        #expect(night.dayIndex == 1)
        // Written under day 2, but day 1's window holds it and day 2's does not.
        #expect(document.sessions.map(\.dayIndex) == [1, 1, 1, 2])
        #expect(document.days[0].start == instant("2024-12-27T11:00:00+01:00"))
        #expect(document.days[0].end == instant("2024-12-28T04:00:00+01:00"))
    }

    @Test func withoutDayWindowsDaysRunFromSixToSix() throws {
        let data = frabXML(
            conference: "<time_zone_name>Europe/Berlin</time_zone_name>",
            days: """
                <day index="1" date="2024-03-01"><room name="A">
                  <event id="1"><start>20:00</start><duration>01:00</duration><title>Evening</title></event>
                </room></day>
                <day index="2" date="2024-03-02"><room name="A">
                  <event id="2"><date>2024-03-02T01:30:00+01:00</date><duration>00:30</duration><title>Night</title></event>
                  <event id="3"><start>10:00</start><duration>00:30</duration><title>Morning</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.sessions.map(\.dayIndex) == [1, 1, 2])
        #expect(wallClock(try #require(document.days[0].start), in: document) == "2024-03-01T06:00:00+01:00")
        #expect(wallClock(try #require(document.days[0].end), in: document) == "2024-03-02T06:00:00+01:00")
    }

    @Test func theFilesDayChangeAndTheConfiguredOneSetTheWindows() throws {
        let data = frabXML(
            conference: "<time_zone_name>Europe/Berlin</time_zone_name><day_change>05:00</day_change>",
            days: """
                <day index="1" date="2024-03-01"><room name="A">
                  <event id="1"><start>20:00</start><duration>01:00</duration><title>Evening</title></event>
                </room></day>
                <day index="2" date="2024-03-02"><room name="A">
                  <event id="2"><date>2024-03-02T04:00:00+01:00</date><duration>00:30</duration><title>Four</title></event>
                </room></day>
                """)
        let fromFile = try FrabXMLReader().read(data, source: "t.xml")
        #expect(fromFile.sessions.map(\.dayIndex) == [1, 1])
        #expect(wallClock(try #require(fromFile.days[1].start), in: fromFile) == "2024-03-02T05:00:00+01:00")
        let configured = try FrabXMLReader(configuration: ScheduleReaderConfiguration(dayChange: 3 * 3600))
            .read(data, source: "t.xml")
        #expect(configured.sessions.map(\.dayIndex) == [1, 2])
        #expect(wallClock(try #require(configured.days[1].start), in: configured) == "2024-03-02T03:00:00+01:00")
    }

    @Test func dayDatesWrittenInUTCGiveTheLocalDate() throws {
        // A UTC+10 conference whose exporter writes the day's date and window in UTC: day 1 is 1 March locally.
        let data = frabXML(
            conference: "<time_zone_name>Australia/Brisbane</time_zone_name>",
            days: """
                <day index="1" date="2024-02-29" start="2024-02-29T23:00:00+00:00" end="2024-03-01T12:59:59+00:00">
                  <room name="A">
                    <event id="1"><date>2024-02-29T23:30:00+00:00</date><start>09:30</start><duration>00:30</duration>
                      <title>Opening</title></event>
                    <event id="2"><start>10:00</start><duration>00:30</duration><title>No date</title></event>
                  </room>
                </day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.days.map(\.date) == ["2024-03-01"])
        #expect(document.days[0].midnight == instant("2024-03-01T00:00:00+10:00"))
        #expect(wallClock(document.sessions[0].start, in: document) == "2024-03-01T09:30:00+10:00")
        #expect(wallClock(document.sessions[1].start, in: document) == "2024-03-01T10:00:00+10:00")
        #expect(document.sessions.map(\.dayIndex) == [1, 1])
    }

    @Test func jsonDayStartAndEndAreTheWindow() throws {
        let json = """
            {"schedule": {"conference": {"time_zone_name": "Europe/Berlin", "days": [
              {"index": 1, "date": "2019-08-21", "day_start": "2019-08-21T09:00:00+02:00",
               "day_end": "2019-08-22T04:00:00+02:00", "rooms": {"A": [
                 {"id": 1, "date": "2019-08-22T02:00:00+02:00", "start": "02:00", "duration": "00:30", "title": "N"}]}},
              {"index": 2, "date": "2019-08-22", "day_start": "2019-08-22T09:00:00+02:00",
               "day_end": "2019-08-23T04:00:00+02:00", "rooms": {}}]}}}
            """
        let document = try FrabJSONReader().read(json.utf8Data, source: "t.json")
        #expect(document.sessions[0].dayIndex == 1)
        #expect(wallClock(document.sessions[0].start, in: document) == "2019-08-22T02:00:00+02:00")
        #expect(document.days[1].start == instant("2019-08-22T09:00:00+02:00"))
    }

    @Test func iCalendarDaysRunFromTheDayChange() throws {
        let data = calendar(
            event("UID:a", "DTSTART:20240301T200000", "SUMMARY:Evening")
                + event("UID:b", "DTSTART:20240302T013000", "SUMMARY:Night")
                + event("UID:c", "DTSTART:20240302T100000", "SUMMARY:Morning"),
            header: ["X-WR-TIMEZONE:Europe/Berlin"])
        let document = try ICalendarReader().read(data, source: "t.ics")
        #expect(document.days.map(\.date) == ["2024-03-01", "2024-03-02"])
        #expect(document.sessions.map(\.dayIndex) == [1, 1, 2])
        #expect(wallClock(try #require(document.days[0].start), in: document) == "2024-03-01T06:00:00+01:00")
        #expect(wallClock(try #require(document.days[0].end), in: document) == "2024-03-02T06:00:00+01:00")
        let configured = try ICalendarReader(configuration: ScheduleReaderConfiguration(dayChange: 3600))
            .read(data, source: "t.ics")
        #expect(configured.sessions.map(\.dayIndex) == [1, 2, 2])
    }

    @Test func aConfiguredAcronymNamesTheConference() throws {
        let configuration = ScheduleReaderConfiguration(acronym: "fosdem21")
        let document = try FrabXMLReader(configuration: configuration).read(
            ScheduleZoneTests.noZone, source: "/tmp/fosdem_2021.xml")
        #expect(document.conference.acronym == "fosdem21")
        #expect(document.conference.name == "fosdem21")
        #expect(try FrabXMLReader().read(ScheduleZoneTests.noZone, source: "t.xml").conference.name == "test")
    }
}
