import Foundation
import Testing

@testable import Schedules

/// The fields Giggity and EventFahrplan show: links, feedback, recording opt-out, room order and guid, track
/// colours, persons' ids, the conference's subtitle and URL (ReadingRules.md, "Fields").
@Suite struct ScheduleFieldTests {
    @Test func frabXMLFields() throws {
        let data = frabXML(
            conference: """
                <subtitle>Tomorrow, today</subtitle><url>https://example.org/conf</url>
                <base_url>https://example.org/conf/schedule/</base_url><time_zone_name>UTC</time_zone_name>
                """,
            days: """
                <day index="1" date="2020-01-01">
                  <room name="Saal 1" guid="11111111-AAAA-4AAA-8AAA-111111111111">
                    <event guid="e1" id="1"><start>10:00</start><duration>00:30</duration><title>One</title>
                      <feedback_url>https://example.org/feedback/1</feedback_url>
                      <recording><license>CC BY 4.0</license><optout>true</optout></recording>
                      <persons><person id="7" guid="p-seven">Ada</person><person id="8">Grace</person></persons>
                      <attachments><attachment type="slides" href="/attachments/slides.pdf">Slides</attachment></attachments>
                      <links><link href="https://example.org/video">Video</link><link href="https://example.org/x"></link>
                      </links>
                    </event>
                  </room>
                  <room name="Saal 2"/>
                  <room name="Unused"/>
                </day>
                <day index="2" date="2020-01-02">
                  <room name="Saal 3">
                    <event guid="e3" id="3"><start>09:00</start><duration>00:30</duration><title>Three</title></event>
                  </room>
                  <room name="Saal 2">
                    <event guid="e4" id="4"><start>11:00</start><duration>00:30</duration><title>Four</title></event>
                    <event guid="e2" id="2"><start>10:00</start><duration>00:30</duration><title>Two</title>
                      <room>Foyer</room><recording><optout>false</optout></recording>
                      <persons><person id="7" guid="p-seven">Ada L.</person><person id="8">Grace</person></persons>
                    </event>
                  </room>
                </day>
                """)
        let document = try FrabXMLReader().read(data, source: "t.xml")
        #expect(document.conference.subtitle == "Tomorrow, today")
        #expect(document.conference.url == "https://example.org/conf")
        let one = document.sessions[0]
        #expect(
            one.links == [
                LinkInfo(title: "Slides", url: "https://example.org/attachments/slides.pdf"),
                LinkInfo(title: "Video", url: "https://example.org/video"),
                LinkInfo(title: "https://example.org/x", url: "https://example.org/x"),
            ])
        #expect(one.feedbackURL == "https://example.org/feedback/1")
        #expect(one.doNotRecord)
        #expect(!document.sessions[1].doNotRecord)
        #expect(one.persons == [PersonInfo(name: "Ada", guid: "p-seven", id: "7"), PersonInfo(name: "Grace", id: "8")])
        // Persons deduplicate by guid, else id: Ada L. is Ada.
        #expect(document.persons.map(\.name) == ["Ada", "Grace"])
        #expect(document.rooms.map(\.name) == ["Saal 1", "Saal 2", "Saal 3", "Foyer"])
        #expect(document.rooms.map(\.position) == [0, 1, 2, 3])
        #expect(document.rooms[0].guid == "11111111-aaaa-4aaa-8aaa-111111111111")
        #expect(document.rooms[1].guid == nil)
    }

    @Test func frabJSONFields() throws {
        let json = """
            {"schedule": {"version": "1", "base_url": "https://example.org/fahrplan/",
             "conference": {"acronym": "j", "title": "J", "subtitle": "Sub", "url": "https://example.org",
              "time_zone_name": "Europe/Berlin",
              "rooms": [{"name": "Zeta", "guid": "room-z"}, {"name": "Alpha", "guid": "room-a"},
                        {"name": "Unused", "guid": "room-u"}],
              "tracks": [{"name": "Hardware", "color": "#ff0000"}, {"name": "Ethics", "color": "#00ff00"},
                         {"name": "Unused", "color": "#0000ff"}],
              "days": [{"index": 1, "date": "2019-08-21", "rooms": {
                "Meitner": [{"guid": "m1", "start": "11:00", "duration": "00:30", "title": "M", "track": "Ethics",
                   "room": "Meitner", "do_not_record": true, "feedback_url": "https://example.org/fb/m1",
                   "links": [{"url": "https://example.org/l", "title": "Link"}, "https://example.org/bare"],
                   "attachments": [{"url": "/system/a.pdf", "title": "Slides"}],
                   "persons": [{"id": 7797, "public_name": "jinxx"}, {"code": "ABC", "name": "smtw"},
                               {"guid": "g-1", "id": 3, "public_name": "third"}]}],
                "Alpha": [{"guid": "a1", "start": "12:00", "duration": "00:30", "title": "A",
                   "recording": {"optout": true}}],
                "Curie": [{"guid": "c1", "start": "13:00", "duration": "00:30", "title": "C", "track": "Other"}],
                "Zeta": [{"guid": "z1", "start": "14:00", "duration": "00:30", "title": "Z", "track": "Hardware"}]
              }}]}}}
            """
        let document = try FrabJSONReader().read(json.utf8Data, source: "t.json")
        #expect(document.conference.subtitle == "Sub")
        #expect(document.conference.url == "https://example.org")
        // The conference's rooms list first, then the day's room keys in file order (not name order).
        #expect(document.rooms.map(\.name) == ["Zeta", "Alpha", "Meitner", "Curie"])
        #expect(document.rooms.map(\.position) == [0, 1, 2, 3])
        #expect(document.rooms.map(\.guid) == ["room-z", "room-a", nil, nil])
        #expect(document.tracks.map(\.name) == ["Hardware", "Ethics", "Other"])
        #expect(document.tracks.map(\.color) == ["#ff0000", "#00ff00", nil])
        let meitner = try #require(document.sessions.first { $0.guid == "m1" })
        #expect(meitner.doNotRecord)
        #expect(meitner.feedbackURL == "https://example.org/fb/m1")
        #expect(
            meitner.links == [
                LinkInfo(title: "Link", url: "https://example.org/l"),
                LinkInfo(title: "https://example.org/bare", url: "https://example.org/bare"),
                LinkInfo(title: "Slides", url: "https://example.org/system/a.pdf"),
            ])
        #expect(
            meitner.persons == [
                PersonInfo(name: "jinxx", id: "7797"), PersonInfo(name: "smtw", guid: "ABC"),
                PersonInfo(name: "third", guid: "g-1", id: "3"),
            ])
        #expect(document.sessions.first { $0.guid == "a1" }?.doNotRecord == true)
        #expect(document.sessions.first { $0.guid == "c1" }?.doNotRecord == false)
    }

    @Test func iCalendarFields() throws {
        let data = calendar(
            event(
                "UID:a", "DTSTART:20240301T100000Z", "SUMMARY:A", "URL:https://example.org/a", "CATEGORIES:Hardware",
                "COLOR:turquoise", "ATTACH;FMTTYPE=application/pdf;FILENAME=slides.pdf:https://example.org/a.pdf",
                "ATTACH;ENCODING=BASE64;VALUE=BINARY:AAAA", "DTSTAMP:20240201T120000Z",
                "LAST-MODIFIED:20240210T080000Z")
                + event(
                    "UID:b", "DTSTART:20240301T110000Z", "SUMMARY:B", "CATEGORIES:Hardware", "COLOR:red",
                    "DTSTAMP:20240205T120000Z"),
            header: ["X-WR-CALNAME:Example", "URL:https://example.org/"])
        let document = try ICalendarReader().read(data, source: "t.ics")
        #expect(document.conference.url == "https://example.org/")
        #expect(document.conference.releaseDate == instant("2024-02-10T08:00:00Z"))
        #expect(document.tracks == [TrackInfo(name: "Hardware", color: "turquoise")])
        let session = document.sessions[0]
        #expect(session.url == "https://example.org/a")
        #expect(
            session.links == [
                LinkInfo(title: "https://example.org/a", url: "https://example.org/a"),
                LinkInfo(title: "slides.pdf", url: "https://example.org/a.pdf"),
            ])
        #expect(document.rooms.isEmpty)
    }
}
