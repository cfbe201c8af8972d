import Foundation
import Testing

@testable import Schedules

@Suite struct FrabXMLReaderTests {
    let reader = FrabXMLReader()

    @Test func sessionBeforeDayChangeBelongsToNextCalendarDate() throws {
        let data = frabXML(
            conference: "<time_zone_name>Europe/Berlin</time_zone_name><day_change>04:00</day_change>",
            days: """
                <day index="1" date="2024-03-01">
                  <room name="A">
                    <event id="1"><start>22:00</start><duration>01:00</duration><title>Late</title></event>
                    <event id="2"><start>01:00</start><duration>00:30</duration><title>After midnight</title></event>
                  </room>
                </day>
                """)
        let document = try reader.read(data, source: "t.xml")
        #expect(
            document.sessions.map(\.start) == [
                instant("2024-03-01T22:00:00+01:00"), instant("2024-03-02T01:00:00+01:00"),
            ])
        #expect(document.sessions.map(\.dayIndex) == [1, 1])
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.days.first?.midnight == instant("2024-03-01T00:00:00+01:00"))
    }

    @Test func dayStartAttributeSetsTheCutOff() throws {
        let data = frabXML(
            days: """
                <day index="1" date="2014-12-27" start="2014-12-27T09:00:00+01:00" end="2014-12-28T04:00:00+01:00">
                  <room name="Saal 1">
                    <event id="7"><start>01:00</start><duration>00:30</duration><title>Night</title></event>
                    <event id="8"><start>09:00</start><duration>00:30</duration><title>Morning</title></event>
                  </room>
                </day>
                """)
        let document = try reader.read(data, source: "t.xml")
        #expect(document.sessions[0].start == instant("2014-12-28T01:00:00+01:00"))
        #expect(document.sessions[1].start == instant("2014-12-27T09:00:00+01:00"))
        #expect(document.days[0].start == instant("2014-12-27T09:00:00+01:00"))
        #expect(document.days[0].end == instant("2014-12-28T04:00:00+01:00"))
    }

    @Test func utcOffsetInDateIsPreferredOverLocalStart() throws {
        let data = frabXML(
            conference: "<time_zone_name>America/New_York</time_zone_name>",
            days: """
                <day index="1" date="2014-12-27">
                  <room name="Saal 1">
                    <event guid="29aecfd7-2e44-4f49-ab86-29b5e0877325" id="6561">
                      <date>2014-12-27T11:00:00+01:00</date><start>23:59</start><duration>00:30</duration>
                      <title>Opening</title>
                    </event>
                  </room>
                </day>
                """)
        let session = try #require(try reader.read(data, source: "t.xml").sessions.first)
        #expect(session.start == instant("2014-12-27T10:00:00Z"))
        #expect(session.end == instant("2014-12-27T10:30:00Z"))
        #expect(session.identity.description == "guid:29aecfd7-2e44-4f49-ab86-29b5e0877325")
    }

    @Test(arguments: [("00:45", 45), ("1:30:00", 90), ("12:00", 720), ("0:05:59", 5)])
    func durationFormats(text: String, minutes: Int) throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event id="1"><start>10:00</start><duration>\(text)</duration><title>T</title></event>
                </room></day>
                """)
        #expect(try reader.read(data, source: "t.xml").sessions.first?.duration == minutes)
    }

    @Test func escapedHTMLInAbstractStaysText() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event id="1"><start>10:00</start><duration>00:10</duration><title>A &amp; B</title>
                <abstract>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</abstract></event>
                </room></day>
                """)
        let session = try #require(try reader.read(data, source: "t.xml").sessions.first)
        #expect(session.abstract == "<p>Hello <b>world</b></p>")
        #expect(session.title == "A & B")
    }

    @Test func sharedEventIDWithDifferentGuidsKeepsBothAndWarns() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event guid="G1" id="1"><start>10:00</start><duration>00:10</duration><title>First</title></event>
                <event guid="G2" id="1"><start>12:00</start><duration>00:10</duration><title>Same id</title></event>
                </room></day>
                """)
        let document = try reader.read(data, source: "t.xml")
        #expect(document.sessions.map(\.title) == ["First", "Same id"])
        #expect(document.warnings.contains { $0.contains("event id 1") && $0.hasPrefix("line ") })
    }

    @Test func legacyFileWithoutGuidDateVersionOrZoneUsesIdsAndFallbackZone() throws {
        // The repeated id at another time is a second run of the same event (see RepeatRunTests).
        let data = """
            <schedule><conference><title>Legacy</title><day_change>00:00:00</day_change></conference>
            <day index="1" date="2021-02-06"><room name="K">
            <event id="11795"><start>09:00</start><duration>00:25</duration><title>Welcome</title>
            <persons><person id="7745">Marco</person><person id="8052">Paolo</person></persons></event>
            <event id="11795"><start>10:00</start><duration>00:25</duration><title>Duplicate id</title></event>
            </room></day></schedule>
            """.utf8Data
        let configuration = ScheduleReaderConfiguration(fallbackTimeZone: TimeZone(identifier: "Europe/Brussels")!)
        let document = try FrabXMLReader(configuration: configuration).read(data, source: "/tmp/fosdem.xml")
        #expect(document.conference.version == nil)
        #expect(document.conference.identity.description == "file:fosdem")
        #expect(document.sessions.count == 2)
        let session = document.sessions[0]
        #expect(session.identity.description == "id:11795")
        #expect(session.start == instant("2021-02-06T09:00:00+01:00"))
        #expect(session.personNames == ["Marco", "Paolo"])
        #expect(session.persons.map(\.id) == ["7745", "8052"])
        #expect(session.persons.map(\.guid) == [nil, nil])
        #expect(document.persons.count == 2)
        #expect(document.conference.timeZone == "Europe/Brussels")
        #expect(document.conference.timeZoneSource == .assumed)
        #expect(document.warnings.contains { $0.contains("Europe/Brussels") })
    }

    @Test func cancelledStatusAndRoomFallbackToEnclosingRoom() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="Hall">
                <event id="1"><start>10:00</start><duration>00:10</duration><title>T</title><status>Cancelled</status></event>
                </room><room name="Empty"/></day>
                """)
        let document = try reader.read(data, source: "t.xml")
        #expect(document.sessions[0].status == .cancelled)
        #expect(document.sessions[0].roomName == "Hall")
        // A room no session uses is not listed (as Giggity and EventFahrplan show rooms).
        #expect(document.rooms.map(\.name) == ["Hall"])
    }

    @Test func notWellFormedXMLNamesTheLine() throws {
        let data = "<schedule>\n<conference>\n<title>x</titel>\n</conference></schedule>".utf8Data
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "bad.xml") }
        #expect(error.code == .notWellFormed)
        #expect(error.line == 3)
    }

    @Test func strayLineBeforeDeclarationIsRejected() throws {
        let data = "\n<?xml version='1.0' encoding='utf-8' ?>\n<schedule></schedule>".utf8Data
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "bad.xml") }
        #expect(error == ScheduleError(code: .notWellFormed, message: "", source: ""))
        #expect(error.line == 2)
    }

    @Test func otherRootIsUnsupported() {
        #expect(throws: ScheduleError(code: .unsupportedFormat, message: "", source: "")) {
            try reader.read("<database/>".utf8Data, source: "t.xml")
        }
    }

    @Test(arguments: [
        (
            "<time_zone_name>Mars/Olympus</time_zone_name>", "<start>10:00</start><duration>00:10</duration>",
            ScheduleError.Code.invalidTimeZone
        ),
        ("", "<start>25:00</start><duration>00:10</duration>", .invalidDate),
        ("", "<date>2020-13-01T10:00:00Z</date><duration>00:10</duration>", .invalidDate),
        ("", "<start>10:00</start><duration>ten minutes</duration>", .invalidDuration),
        ("", "<duration>00:10</duration>", .missingElement),
    ])
    func invalidContentThrowsItsCode(conference: String, event: String, code: ScheduleError.Code) throws {
        let data = frabXML(
            conference: conference,
            days:
                "<day index=\"1\" date=\"2020-01-01\"><room name=\"A\"><event id=\"1\">\(event)<title>T</title></event></room></day>"
        )
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "t.xml") }
        #expect(error.code == code)
    }

    @Test func deepNestingIsRefused() throws {
        let depth = 100_000
        let data =
            ("<schedule>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</schedule>").utf8Data
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "deep.xml") }
        #expect(error.code == .tooDeeplyNested)
    }

    @Test func invalidUTF8IsRefused() throws {
        var data = "<schedule><conference><title>".utf8Data
        data.append(contentsOf: [0xC3, 0x28, 0xFF])
        data.append("</title></conference></schedule>".utf8Data)
        let error = try #require(throws: ScheduleError.self) { try reader.read(data, source: "t.xml") }
        #expect(error.code == .invalidEncoding || error.code == .notWellFormed)
    }

    @Test func inputOverTheLimitIsTooLarge() {
        let configuration = ScheduleReaderConfiguration(limits: ScheduleReaderLimits(maxInputBytes: 16))
        #expect(throws: ScheduleError(code: .tooLarge, message: "", source: "")) {
            try FrabXMLReader(configuration: configuration).read(frabXML(days: ""), source: "t.xml")
        }
    }
}
