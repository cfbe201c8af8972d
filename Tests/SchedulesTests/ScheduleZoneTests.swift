import Foundation
import Testing

@testable import Schedules

/// Which zone a conference is in, and where that came from (ReadingRules.md, "Zones").
@Suite struct ScheduleZoneTests {
    /// A winter conference written with `+01:00` offsets and no `time_zone_name`.
    static let berlinOffsets = frabXML(
        days: """
            <day index="1" date="2024-12-27" start="2024-12-27T10:00:00+01:00" end="2024-12-28T04:00:00+01:00">
              <room name="Saal 1">
                <event guid="opening"><date>2024-12-27T11:00:00+01:00</date><start>11:00</start>
                  <duration>00:30</duration><title>Opening</title></event>
                <event id="2"><start>12:00</start><duration>00:30</duration><title>No date</title></event>
              </room>
            </day>
            """)

    @Test func offsetsWithoutZoneNameNameAKnownZone() throws {
        let document = try FrabXMLReader().read(Self.berlinOffsets, source: "t.xml")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[0].start, in: document) == "2024-12-27T11:00:00+01:00")
        #expect(wallClock(document.sessions[1].start, in: document) == "2024-12-27T12:00:00+01:00")
        #expect(document.warnings.isEmpty)
    }

    @Test func offsetsAcrossADaylightSavingChangeMustAllAgree() throws {
        // +02:00 then +01:00 across the last Sunday of October: Berlin agrees at both instants; London (+01:00,
        // +00:00) does not, and no fixed offset would.
        let data = frabXML(
            days: """
                <day index="1" date="2024-10-26"><room name="A">
                  <event id="1"><date>2024-10-26T10:00:00+02:00</date><duration>00:30</duration><title>Sat</title></event>
                </room></day>
                <day index="2" date="2024-10-27"><room name="A">
                  <event id="2"><date>2024-10-27T10:00:00+01:00</date><duration>00:30</duration><title>Sun</title></event>
                  <event id="3"><start>14:00</start><duration>00:30</duration><title>Floating</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[2].start, in: document) == "2024-10-27T14:00:00+01:00")
    }

    @Test func offsetsMatchingNoKnownZoneGiveAFixedOffset() throws {
        let data = frabXML(
            days: """
                <day index="1" date="2024-03-01"><room name="A">
                  <event id="1"><date>2024-03-01T09:00:00+05:45</date><duration>00:30</duration><title>T</title></event>
                  <event id="2"><start>10:00</start><duration>00:30</duration><title>U</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.conference.timeZone == "+05:45")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[0].start, in: document) == "2024-03-01T09:00:00+05:45")
        #expect(wallClock(document.sessions[1].start, in: document) == "2024-03-01T10:00:00+05:45")
    }

    @Test func timesWrittenInUTCNameUTCNotLondon() throws {
        let data = frabXML(
            days: """
                <day index="1" date="2024-01-10"><room name="A">
                  <event id="1"><date>2024-01-10T09:00:00Z</date><duration>00:30</duration><title>T</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.conference.timeZone == "UTC")
        #expect(document.conference.timeZoneSource == .offsets)
    }

    static let noZone = frabXML(
        days: """
            <day index="1" date="2021-02-06"><room name="K">
              <event id="1"><start>09:00</start><duration>00:25</duration><title>Welcome</title></event>
            </room></day>
            """)

    @Test func neitherZoneNorOffsetsIsAssumedUTCWithAWarning() throws {
        let document = try FrabXMLReader().read(Self.noZone, source: "t.xml")
        #expect(document.conference.timeZone == "UTC")
        #expect(document.conference.timeZoneSource == .assumed)
        #expect(wallClock(document.sessions[0].start, in: document) == "2021-02-06T09:00:00Z")
        #expect(document.warnings.contains { $0.contains("UTC") && $0.contains("timeZone") })
    }

    @Test func aConfiguredZoneReadsAFileWithoutZoneOrOffsets() throws {
        let configuration = ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "Europe/Brussels")!)
        let document = try FrabXMLReader(configuration: configuration).read(Self.noZone, source: "t.xml")
        #expect(document.conference.timeZone == "Europe/Brussels")
        #expect(document.conference.timeZoneSource == .configured)
        #expect(wallClock(document.sessions[0].start, in: document) == "2021-02-06T09:00:00+01:00")
        #expect(document.sessions[0].start == instant("2021-02-06T08:00:00Z"))
        #expect(document.warnings.isEmpty)
    }

    @Test func offsetsAgreeingWithTheConfiguredZoneTakeItsName() throws {
        // Paris and Berlin share their offsets; the configured name wins over the known list's first match.
        let configuration = ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "Europe/Paris")!)
        let document = try FrabXMLReader(configuration: configuration).read(Self.berlinOffsets, source: "t.xml")
        #expect(document.conference.timeZone == "Europe/Paris")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(document.warnings.isEmpty)
    }

    @Test func offsetsDisagreeingWithTheConfiguredZoneWinWithAWarning() throws {
        let configuration = ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "America/New_York")!)
        let document = try FrabXMLReader(configuration: configuration).read(Self.berlinOffsets, source: "t.xml")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[1].start, in: document) == "2024-12-27T12:00:00+01:00")
        #expect(document.warnings.contains { $0.contains("America/New_York") && $0.contains("+01:00") })
    }

    @Test func aZoneTheFileNamesWinsOverTheConfiguredOne() throws {
        let configuration = ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "Europe/Brussels")!)
        let data = frabXML(
            conference: "<time_zone_name>America/New_York</time_zone_name>",
            days: """
                <day index="1" date="2024-07-01"><room name="A">
                  <event id="1"><start>09:00</start><duration>00:25</duration><title>T</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader(configuration: configuration).read(data, source: "t.xml")
        #expect(document.conference.timeZone == "America/New_York")
        #expect(document.conference.timeZoneSource == .file)
        #expect(wallClock(document.sessions[0].start, in: document) == "2024-07-01T09:00:00-04:00")
    }

    @Test func jsonOffsetsWithoutZoneNameNameAKnownZone() throws {
        let json = """
            {"schedule": {"conference": {"acronym": "j", "title": "J", "days": [{"index": 1, "date": "2024-07-01",
              "day_start": "2024-07-01T09:00:00-04:00", "day_end": "2024-07-02T02:00:00-04:00",
              "rooms": {"A": [{"id": 1, "date": "2024-07-01T10:00:00-04:00", "start": "10:00", "duration": "00:30",
                "title": "T"}, {"id": 2, "start": "11:00", "duration": "00:30", "title": "U"}]}}]}}}
            """
        let document = try FrabJSONReader().read(json.utf8Data, source: "t.json")
        #expect(document.conference.timeZone == "America/New_York")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[1].start, in: document) == "2024-07-01T11:00:00-04:00")
    }

    @Test func jsonTimeZoneNameIsTheFilesZone() throws {
        let json = """
            {"schedule": {"conference": {"time_zone_name": "UTC", "days": [{"index": 1, "date": "2024-07-01",
              "rooms": {"A": [{"id": 1, "start": "10:00", "duration": "00:30", "title": "T"}]}}]}}}
            """
        let document = try FrabJSONReader().read(json.utf8Data, source: "t.json")
        #expect(document.conference.timeZone == "UTC")
        #expect(document.conference.timeZoneSource == .file)
    }

    // MARK: iCalendar

    @Test func titleOnlyCalendarIsNamedBySlugAndAssumedUTC() throws {
        let data = calendar(
            event("UID:a", "DTSTART:20220517T110000", "DTEND:20220517T123000", "SUMMARY:Accueil"),
            header: ["X-WR-CALNAME:JRES 2021/22"])
        let document = try ICalendarReader().read(data, source: "jres.ics")
        #expect(document.conference.name == "jres-2021-22")
        #expect(document.conference.timeZone == "UTC")
        #expect(document.conference.timeZoneSource == .assumed)
        #expect(wallClock(document.sessions[0].start, in: document) == "2022-05-17T11:00:00Z")
        #expect(document.warnings.contains { $0.contains("UTC") && $0.contains("timeZone") })
    }

    @Test func aConfiguredZoneReadsFloatingTimesAndNamesTheCalendar() throws {
        let data = calendar(
            event("UID:a", "DTSTART:20220517T110000", "DTEND:20220517T123000", "SUMMARY:Accueil"),
            header: ["X-WR-CALNAME:JRES 2021/22"])
        let configuration = ScheduleReaderConfiguration(
            timeZone: TimeZone(identifier: "Europe/Paris")!, acronym: "jres22")
        let document = try ICalendarReader(configuration: configuration).read(data, source: "jres.ics")
        #expect(document.conference.timeZone == "Europe/Paris")
        #expect(document.conference.timeZoneSource == .configured)
        #expect(document.conference.name == "jres22")
        #expect(wallClock(document.sessions[0].start, in: document) == "2022-05-17T11:00:00+02:00")
        #expect(document.warnings.isEmpty)
    }

    @Test func aCalendarOfUTCTimesNamingNoZoneIsAssumedUTC() throws {
        let data = calendar(event("UID:a", "DTSTART:20220517T090000Z", "SUMMARY:A"))
        let document = try ICalendarReader().read(data, source: "t.ics")
        #expect(document.conference.timeZone == "UTC")
        #expect(document.conference.timeZoneSource == .assumed)
        #expect(!document.warnings.isEmpty)
        let configured = try ICalendarReader(
            configuration: ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        ).read(data, source: "t.ics")
        #expect(configured.conference.timeZoneSource == .configured)
        #expect(wallClock(configured.sessions[0].start, in: configured) == "2022-05-17T18:00:00+09:00")
    }

    @Test func calendarZoneNamesAreTheFiles() throws {
        let named = calendar(
            event("UID:a", "DTSTART:20220517T090000", "SUMMARY:A"), header: ["X-WR-TIMEZONE:Asia/Tokyo"])
        let byName = try ICalendarReader().read(named, source: "t.ics")
        #expect(byName.conference.timeZone == "Asia/Tokyo")
        #expect(byName.conference.timeZoneSource == .file)
        let tzid = calendar(event("UID:a", "DTSTART;TZID=Europe/Lisbon:20220517T090000", "SUMMARY:A"))
        let byTZID = try ICalendarReader().read(tzid, source: "t.ics")
        #expect(byTZID.conference.timeZone == "Europe/Lisbon")
        #expect(byTZID.conference.timeZoneSource == .file)
        #expect(wallClock(byTZID.sessions[0].start, in: byTZID) == "2022-05-17T09:00:00+01:00")
    }

    @Test func aCustomVTimeZoneIsNamedByItsOffsets() throws {
        let zone = [
            "BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time",
            "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT", "END:VTIMEZONE",
        ]
        let data = calendar(
            zone + event("UID:s", "DTSTART;TZID=W. Europe Standard Time:20230715T100000", "SUMMARY:S")
                + event("UID:w", "DTSTART;TZID=W. Europe Standard Time:20230115T100000", "SUMMARY:W"))
        let document = try ICalendarReader().read(data, source: "t.ics")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(wallClock(document.sessions[0].start, in: document) == "2023-07-15T10:00:00+02:00")
    }
}
