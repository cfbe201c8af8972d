import Foundation
import Testing

@testable import Schedules

/// Repeat runs are kept, true duplicates merged, and both say so with the line (ReadingRules.md, "Repeat runs").
@Suite struct RepeatRunTests {
    static let workshop = frabXML(
        conference: "<time_zone_name>Europe/Berlin</time_zone_name>",
        days: """
            <day index="1" date="2020-01-01"><room name="A">
            <event guid="G1" id="1"><start>10:00</start><duration>01:00</duration><title>Workshop</title></event>
            <event guid="G1" id="1"><start>15:00</start><duration>01:00</duration><title>Workshop (again)</title></event>
            <event guid="G1" id="1"><start>10:00</start><duration>01:00</duration><title>Workshop copy</title></event>
            </room></day>
            """)

    @Test func aGuidRepeatedAtAnotherTimeIsASecondRun() throws {
        let document = try FrabXMLReader().read(Self.workshop, source: "t.xml")
        #expect(document.sessions.map(\.title) == ["Workshop", "Workshop (again)"])
        #expect(document.sessions.map(\.guid) == ["G1", "G1@20200101T140000Z"])
        #expect(Set(document.sessions.map(\.identity)).count == 2)
        #expect(
            document.sessions.map { wallClock($0.start, in: document) } == [
                "2020-01-01T10:00:00+01:00", "2020-01-01T15:00:00+01:00",
            ])
        let second = try #require(line(of: "Workshop (again)", in: Self.workshop))
        #expect(
            document.warnings.contains {
                $0.hasPrefix("line \(second): repeat run of guid:G1 at line \(second) kept as guid:G1@20200101T140000Z")
            })
        // No second warning about the shared event id: a repeat run shares it by nature.
        #expect(!document.warnings.contains { $0.contains("event id") })
    }

    @Test func aTrueDuplicateIsMergedWithAWarningNamingItsLine() throws {
        let document = try FrabXMLReader().read(Self.workshop, source: "t.xml")
        #expect(!document.sessions.contains { $0.title == "Workshop copy" })
        let copy = try #require(line(of: "Workshop copy", in: Self.workshop))
        let first = try #require(line(of: "<title>Workshop</title>", in: Self.workshop))
        #expect(
            document.warnings.contains {
                $0.hasPrefix("line \(copy): duplicate") && $0.contains("line \(first)") && $0.contains("merged")
            })
    }

    /// A third run is told apart from the second as well as the first: a copy of the second run is a duplicate of
    /// it, and a file that spells out a repeat run's suffixed guid is a duplicate of that run.
    @Test func laterRunsAndSuffixedGuidsAreTrackedLikeTheFirst() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event guid="G"><start>09:00</start><duration>01:00</duration><title>First</title></event>
                <event guid="G"><start>11:00</start><duration>01:00</duration><title>Second</title></event>
                <event guid="G"><start>13:00</start><duration>01:00</duration><title>Third</title></event>
                <event guid="G"><start>11:00</start><duration>01:00</duration><title>Second copy</title></event>
                <event guid="G@20200101T130000Z"><start>16:00</start><duration>01:00</duration><title>Spelt</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.sessions.map(\.title) == ["First", "Second", "Third"])
        #expect(document.sessions.map(\.guid) == ["G", "G@20200101T110000Z", "G@20200101T130000Z"])
        let second = try #require(line(of: "<title>Second</title>", in: data))
        let copy = try #require(line(of: "Second copy", in: data))
        let spelt = try #require(line(of: "Spelt", in: data))
        #expect(
            document.warnings.contains {
                $0.hasPrefix("line \(copy): duplicate of the session at line \(second) (guid:G, same start and room)")
            })
        #expect(
            document.warnings.contains {
                $0 == "line \(spelt): duplicate session guid:G@20200101T130000Z ignored; the first occurrence is kept"
            })
    }

    /// Two events with one numeric id but different guids are two sessions (the guid is the identity), and the
    /// reader says which line had the id first; a third event with the id is named against the first too.
    @Test func anEventIDSharedByDifferentGuidsKeepsBothWithAWarning() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event guid="G1" id="7"><start>09:00</start><duration>01:00</duration><title>One</title></event>
                <event guid="G2" id="7"><start>10:00</start><duration>01:00</duration><title>Two</title></event>
                <event guid="G3" id="7"><start>11:00</start><duration>01:00</duration><title>Three</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.sessions.map(\.title) == ["One", "Two", "Three"])
        let one = try #require(line(of: "<title>One</title>", in: data))
        for title in ["Two", "Three"] {
            let at = try #require(line(of: "<title>\(title)</title>", in: data))
            #expect(
                document.warnings.contains {
                    $0 == "line \(at): event id 7 is shared with the session at line \(one); "
                        + "both kept, their guids differ"
                })
        }
    }

    @Test func theSameStartInAnotherRoomKeepsTheFirst() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01">
                <room name="A"><event guid="G"><start>10:00</start><duration>01:00</duration><title>T</title></event></room>
                <room name="B"><event guid="G"><start>10:00</start><duration>01:00</duration><title>T</title></event></room>
                </day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.sessions.map(\.roomName) == ["A"])
        #expect(document.warnings.contains { $0.contains("room B instead of A") && $0.hasPrefix("line ") })
    }

    @Test func idOnlyFilesKeepRepeatRunsToo() throws {
        let data = frabXML(
            conference: "<time_zone_name>UTC</time_zone_name>",
            days: """
                <day index="1" date="2020-01-01"><room name="A">
                <event id="7"><start>10:00</start><duration>01:00</duration><title>T</title></event>
                <event id="7"><start>12:00</start><duration>01:00</duration><title>T</title></event>
                </room></day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.sessions.map(\.identity.description) == ["id:7", "id:7@20200101T120000Z"])
    }

    @Test func jsonRepeatRunsAndDuplicatesNameTheirLines() throws {
        let json = """
            {"schedule": {"conference": {"time_zone_name": "UTC", "days": [{"index": 1, "date": "2020-01-01",
              "rooms": {"A": [
                {"guid": "W", "start": "10:00", "duration": "01:00", "title": "First"},
                {"guid": "W", "start": "12:00", "duration": "01:00", "title": "Second"},
                {"guid": "W", "start": "12:00", "duration": "01:00", "title": "Copy"}
              ]}}]}}}
            """
        let data = json.utf8Data
        let document = try FrabJSONReader().read(data, source: "t.json")
        #expect(document.sessions.map(\.guid) == ["W", "W@20200101T120000Z"])
        let second = try #require(line(of: "Second", in: data))
        let copy = try #require(line(of: "Copy", in: data))
        #expect(document.warnings.contains { $0.hasPrefix("line \(second): repeat run of guid:W") })
        #expect(document.warnings.contains { $0.hasPrefix("line \(copy): duplicate") })
    }
}
