import Foundation
import Testing

@testable import Schedules

/// A calendar around the given lines, joined with CRLF unless told otherwise.
func calendar(_ lines: [String], header: [String] = [], lineEnd: String = "\r\n") -> Data {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + header + lines + ["END:VCALENDAR"])
        .joined(separator: lineEnd).utf8Data
}

func event(_ lines: String...) -> [String] { ["BEGIN:VEVENT"] + lines + ["END:VEVENT"] }

@Suite struct ICalendarReaderTests {
    let reader = ICalendarReader()

    @Test func foldSplittingAMultiByteCharacterIsJoinedBeforeDecoding() throws {
        var data = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20200101T100000Z\r\nSUMMARY:Caf".utf8Data
        data.append(0xC3)
        data.append("\r\n ".utf8Data)
        data.append(0xA9)
        data.append(" au lait\n\t(folded with LF and tab)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8Data)
        let document = try reader.read(data, source: "fold.ics")
        #expect(document.sessions.first?.title == "Café au lait(folded with LF and tab)")
        #expect(!document.warnings.contains { $0.contains("UTF-8") })
    }

    @Test func lfLineEndsAndQuotedParameters() throws {
        let data = calendar(
            event(
                "UID:p1", "DTSTART:20200101T100000Z", "SUMMARY;LANGUAGE=en:Talk",
                "ATTENDEE;ROLE=REQ-PARTICIPANT;CN=\"Doe; Jane: PhD\";RSVP=TRUE:mailto:jane@example.org",
                "ATTENDEE;CN=Bob:mailto:bob@example.org", "ORGANIZER;CN=Org:mailto:org@example.org"),
            lineEnd: "\n")
        let session = try #require(try reader.read(data, source: "t.ics").sessions.first)
        #expect(session.personNames == ["Doe; Jane: PhD", "Bob"])
        #expect(session.language == "en")
        #expect(session.duration == 0)
    }

    @Test func textIsUnescaped() throws {
        let data = calendar(
            event(
                "UID:e1", "DTSTART:20200101T100000Z", "SUMMARY:A\\, B\\; C \\\\ D",
                "DESCRIPTION:line one\\nline two\\Nthree", "LOCATION:Room 1\\, upstairs",
                "CATEGORIES:Security\\, Privacy,Other"))
        let session = try #require(try reader.read(data, source: "t.ics").sessions.first)
        #expect(session.title == "A, B; C \\ D")
        #expect(session.details == "line one\nline two\nthree")
        #expect(session.roomName == "Room 1, upstairs")
        #expect(session.trackName == "Security, Privacy")
    }

    @Test func timeZonesUTCTZIDAndFloating() throws {
        let data = calendar(
            event("UID:utc", "DTSTART:20200701T100000Z", "DTEND:20200701T110000Z", "SUMMARY:UTC")
                + event("UID:tzid", "DTSTART;TZID=Europe/Berlin:20200701T100000", "DURATION:PT1H30M", "SUMMARY:Berlin")
                + event(
                    "UID:moz", "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Berlin:20200101T100000", "SUMMARY:Prefixed")
                + event("UID:float", "DTSTART:20200701T100000", "SUMMARY:Floating"),
            header: ["X-WR-TIMEZONE:America/New_York", "X-WR-CALNAME:My Conf"])
        let document = try reader.read(data, source: "t.ics")
        let byUID = Dictionary(uniqueKeysWithValues: document.sessions.map { ($0.uid!, $0) })
        #expect(byUID["utc"]?.start == instant("2020-07-01T10:00:00Z"))
        #expect(byUID["utc"]?.duration == 60)
        #expect(byUID["tzid"]?.start == instant("2020-07-01T10:00:00+02:00"))
        #expect(byUID["tzid"]?.end == instant("2020-07-01T11:30:00+02:00"))
        #expect(byUID["moz"]?.start == instant("2020-01-01T10:00:00+01:00"))
        #expect(byUID["float"]?.start == instant("2020-07-01T10:00:00-04:00"))
        #expect(document.conference.timeZone == "America/New_York")
        #expect(document.conference.title == "My Conf")
        #expect(document.conference.identity.description == "calendar:My Conf")
    }

    @Test func customVTimeZoneOffsetsAreApplied() throws {
        let zone = [
            "BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time",
            "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT", "END:VTIMEZONE",
        ]
        let data = calendar(
            zone + event("UID:summer", "DTSTART;TZID=W. Europe Standard Time:20230715T100000", "SUMMARY:S")
                + event("UID:winter", "DTSTART;TZID=\"W. Europe Standard Time\":20230115T100000", "SUMMARY:W"))
        let document = try reader.read(data, source: "t.ics")
        #expect(
            document.sessions.map(\.start) == [
                instant("2023-07-15T10:00:00+02:00"), instant("2023-01-15T10:00:00+01:00"),
            ])
        #expect(document.warnings.isEmpty)
    }

    @Test func unknownTZIDWithoutVTimeZoneFallsBackWithWarning() throws {
        let data = calendar(
            event("UID:x", "DTSTART;TZID=Nowhere Standard Time:20230715T100000", "SUMMARY:S"),
            header: ["X-WR-TIMEZONE:Europe/London"])
        let document = try reader.read(data, source: "t.ics")
        #expect(document.sessions.first?.start == instant("2023-07-15T10:00:00+01:00"))
        #expect(document.warnings.contains { $0.contains("TZID") })
    }

    @Test func allDayEventsStartAtLocalMidnight() throws {
        let data = calendar(
            event("UID:a", "DTSTART;VALUE=DATE:20240301", "DTEND;VALUE=DATE:20240303", "SUMMARY:Two days")
                + event("UID:b", "DTSTART;VALUE=DATE:20240310", "SUMMARY:One day"),
            header: ["X-WR-TIMEZONE:Europe/Berlin"])
        let document = try reader.read(data, source: "t.ics")
        let twoDays = document.sessions[0]
        #expect(twoDays.isAllDay)
        #expect(twoDays.start == instant("2024-03-01T00:00:00+01:00"))
        #expect(twoDays.end == instant("2024-03-03T00:00:00+01:00"))
        #expect(twoDays.duration == 2 * 24 * 60)
        // 2024-03-10 has no DST change in Berlin: exactly one day.
        #expect(document.sessions[1].duration == 24 * 60)
        #expect(document.days.map(\.date) == ["2024-03-01", "2024-03-10"])
        #expect(document.sessions.map(\.dayIndex) == [1, 2])
    }

    @Test func weeklyRuleWithExdateAndOverride() throws {
        let data = calendar(
            event(
                "UID:weekly", "DTSTART;TZID=Europe/Berlin:20240304T100000", "DTEND;TZID=Europe/Berlin:20240304T110000",
                "RRULE:FREQ=WEEKLY;COUNT=5", "EXDATE;TZID=Europe/Berlin:20240311T100000", "SUMMARY:Standup",
                "LOCATION:Room A")
                + event(
                    "UID:weekly", "RECURRENCE-ID;TZID=Europe/Berlin:20240325T100000",
                    "DTSTART;TZID=Europe/Berlin:20240326T140000", "DTEND;TZID=Europe/Berlin:20240326T150000",
                    "SUMMARY:Standup (moved)", "LOCATION:Room B")
                + event(
                    "UID:weekly", "RECURRENCE-ID;TZID=Europe/Berlin:20240318T100000",
                    "DTSTART;TZID=Europe/Berlin:20240318T100000", "STATUS:CANCELLED", "SUMMARY:Standup"))
        let document = try reader.read(data, source: "t.ics")
        // 4, 11 (excluded), 18 (cancelled override), 25 (moved to 26th), April 1 (after DST change: still 10:00).
        #expect(document.sessions.count == 4)
        #expect(
            document.sessions.map(\.start) == [
                instant("2024-03-04T10:00:00+01:00"), instant("2024-03-18T10:00:00+01:00"),
                instant("2024-03-26T14:00:00+01:00"), instant("2024-04-01T10:00:00+02:00"),
            ])
        #expect(document.sessions[1].status == .cancelled)
        #expect(document.sessions[2].title == "Standup (moved)")
        #expect(document.sessions[2].roomName == "Room B")
        #expect(document.sessions[2].identity.description == "uid:weekly@20240325T090000Z")
        #expect(Set(document.sessions.map(\.identity)).count == 4)
    }

    @Test func monthlyRulesWithOrdinalWeekdays() throws {
        let data = calendar(
            event(
                "UID:m1", "DTSTART:20240109T180000Z", "RRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=3", "SUMMARY:Second Tuesday")
                + event(
                    "UID:m2", "DTSTART:20240126T180000Z", "RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20240430T000000Z",
                    "SUMMARY:Last Friday")
                + event(
                    "UID:d1", "DTSTART:20240101T080000Z", "RRULE:FREQ=DAILY;INTERVAL=2;COUNT=3", "DURATION:PT15M",
                    "SUMMARY:Every other day"))
        let document = try reader.read(data, source: "t.ics")
        let byUID = Dictionary(grouping: document.sessions, by: { $0.uid! })
        #expect(
            byUID["m1"]?.map(\.start) == [
                instant("2024-01-09T18:00:00Z"), instant("2024-02-13T18:00:00Z"), instant("2024-03-12T18:00:00Z"),
            ])
        #expect(
            byUID["m2"]?.map(\.start) == [
                instant("2024-01-26T18:00:00Z"), instant("2024-02-23T18:00:00Z"), instant("2024-03-29T18:00:00Z"),
                instant("2024-04-26T18:00:00Z"),
            ])
        #expect(
            byUID["d1"]?.map(\.start) == [
                instant("2024-01-01T08:00:00Z"), instant("2024-01-03T08:00:00Z"), instant("2024-01-05T08:00:00Z"),
            ])
        #expect(byUID["d1"]?.allSatisfy { $0.duration == 15 } == true)
    }

    @Test func unboundedRuleStopsAtHorizonWithWarning() throws {
        let data = calendar(event("UID:forever", "DTSTART:20240101T080000Z", "RRULE:FREQ=DAILY", "SUMMARY:Daily"))
        let document = try reader.read(data, source: "t.ics")
        #expect(document.sessions.count == 732)  // DTSTART plus 731 days of horizon
        #expect(document.warnings.contains { $0.contains("horizon") })
        let limited = ICalendarReader(
            configuration: ScheduleReaderConfiguration(limits: ScheduleReaderLimits(maxRecurrenceInstances: 5)))
        let capped = try limited.read(data, source: "t.ics")
        #expect(capped.sessions.count == 5)
        #expect(capped.warnings.contains { $0.contains("5 instances") })
    }

    @Test func cancelledStatusAndDuplicateUID() throws {
        let data = calendar(
            event("UID:c", "DTSTART:20240101T080000Z", "STATUS:CANCELLED", "SUMMARY:Gone")
                + event("UID:c", "DTSTART:20240102T080000Z", "SUMMARY:Duplicate"))
        let document = try reader.read(data, source: "t.ics")
        #expect(document.sessions.map(\.title) == ["Gone"])
        #expect(document.sessions[0].status == .cancelled)
        #expect(document.warnings.contains { $0.contains("duplicate UID") })
    }

    @Test(arguments: [
        (event("UID:1", "SUMMARY:No start"), ScheduleError.Code.missingElement),
        (event("UID:1", "DTSTART:2024-01-01"), .invalidDate),
        (event("UID:1", "DTSTART:20240101T100000Z", "DURATION:1 hour"), .invalidDuration),
        (event("UID:1", "DTSTART:20240101T100000Z", "RRULE:COUNT=3"), .invalidRecurrence),
        (["BEGIN:VEVENT", "DTSTART:20240101T100000Z", "END:VTODO"], .notWellFormed),
    ])
    func invalidEventsThrowTheirCode(lines: [String], code: ScheduleError.Code) throws {
        let error = try #require(throws: ScheduleError.self) { try reader.read(calendar(lines), source: "t.ics") }
        #expect(error.code == code)
        #expect(error.line != nil)
    }

    @Test func truncatedCalendarIsNotWellFormed() throws {
        let data = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20240101T100000Z\r\n".utf8Data
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "t.ics") }
        #expect(error.code == .notWellFormed)
        #expect(error.message.contains("truncated"))
    }

    @Test func invalidUTF8IsReplacedWithWarning() throws {
        var data = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:1\nDTSTART:20240101T100000Z\nSUMMARY:bad ".utf8Data
        data.append(contentsOf: [0xFF, 0xFE])
        data.append("\nEND:VEVENT\nEND:VCALENDAR\n".utf8Data)
        let document = try reader.read(data, source: "t.ics")
        #expect(document.sessions.first?.title.hasPrefix("bad ") == true)
        #expect(document.warnings.contains { $0.contains("UTF-8") })
    }
}
