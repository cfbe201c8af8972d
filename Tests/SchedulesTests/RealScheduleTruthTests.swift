import Foundation
import Testing

@testable import Schedules

/// The rules of issue #23 on real published schedules: what a person reads on each.
@Suite("Real schedules tell the truth", .enabled(if: SharedSchedules.isAvailable, SharedSchedules.skipReason))
struct RealScheduleTruthTests {
    @Test func thirtyFirstC3IsInBerlinByItsOffsetsAndItsDaysRunPastMidnight() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("31c3-schedule-v1.3.xml"), source: "31c3-schedule-v1.3.xml")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .offsets)
        #expect(document.warnings.isEmpty)
        let opening = try #require(document.sessions.first { $0.guid == "29aecfd7-2e44-4f49-ab86-29b5e0877325" })
        #expect(wallClock(opening.start, in: document) == "2014-12-27T11:00:00+01:00")
        #expect(opening.dayIndex == 1)
        #expect(document.days.map(\.date) == ["2014-12-27", "2014-12-28", "2014-12-29", "2014-12-30"])
        #expect(wallClock(try #require(document.days[0].end), in: document) == "2014-12-28T04:00:00+01:00")
        // Each <day> of the file holds 35, 45, 40 and 17 events; the night's sessions stay on their day.
        let perDay = document.days.map { day in document.sessions.filter { $0.dayIndex == day.index }.count }
        #expect(perDay == [35, 45, 40, 17])
        let dayOne = document.sessions.filter { $0.dayIndex == 1 }
        #expect(dayOne.contains { wallClock($0.start, in: document).hasPrefix("2014-12-28T00:00:00") })
        #expect(document.rooms.map(\.name) == ["Saal 1", "Saal 2", "Saal G", "Saal 6"])
        let scada = try #require(document.sessions.first { $0.links.contains { $0.url == "http://www.scadasl.org" } })
        #expect(scada.links.first == LinkInfo(title: "SCADA StrangeLove", url: "http://www.scadasl.org"))
        #expect(document.sessions.filter(\.doNotRecord).count == 2)
        #expect(opening.persons.map(\.id) == ["1544", "3874"])
    }

    @Test func fosdem2021NamesNoZoneUntilOneIsConfigured() throws {
        let data = try SharedSchedules.data("fosdem-2021-schedule.xml")
        let assumed = try ScheduleReader.read(data, source: "fosdem-2021-schedule.xml")
        #expect(assumed.conference.timeZone == "UTC")
        #expect(assumed.conference.timeZoneSource == .assumed)
        #expect(assumed.warnings.contains { $0.contains("UTC") })
        #expect(assumed.conference.name == "fosdem-2021")
        let configuration = ScheduleReaderConfiguration(timeZone: TimeZone(identifier: "Europe/Brussels")!)
        let document = try ScheduleReader.read(data, source: "fosdem-2021-schedule.xml", configuration: configuration)
        #expect(document.conference.timeZone == "Europe/Brussels")
        #expect(document.conference.timeZoneSource == .configured)
        #expect(document.warnings.isEmpty)
        let welcome = try #require(document.sessions.first { $0.eventID == .number(11795) })
        #expect(wallClock(welcome.start, in: document) == "2021-02-06T09:00:00+01:00")
        #expect(welcome.dayIndex == 1)
        #expect(welcome.links.count == 3)
        #expect(
            welcome.links.last
                == LinkInfo(title: "Submit feedback", url: "https://submission.fosdem.org/feedback/11795.php"))
        #expect(
            document.sessions.filter { $0.dayIndex == 1 }.count + document.sessions.filter { $0.dayIndex == 2 }.count
                == 773)
        // 108 rooms are declared; D.graph and S.radio hold no event (Giggity lists 106 too).
        #expect(document.rooms.count == 106)
        #expect(document.rooms.first?.name == "K.fosdem")
        #expect(document.tracks.count == 109)
    }

    @Test func camp2019IsInBerlinByItsNameWithRoomsInFileOrder() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("camp2019-schedule.json"), source: "camp2019-schedule.json")
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.timeZoneSource == .file)
        #expect(document.conference.url == "https://fahrplan.events.ccc.de/camp/2019/Fahrplan/")
        #expect(document.rooms.map(\.name) == ["Curie", "Meitner"])
        #expect(document.rooms.map(\.position) == [0, 1])
        let opening = try #require(document.sessions.first { $0.guid == "a0a0fcfe-b7fb-46e3-84b6-97a5406016b4" })
        #expect(wallClock(opening.start, in: document) == "2019-08-21T11:00:00+02:00")
        #expect(opening.persons.map(\.id) == ["7797", "4827"])
        #expect(document.days.map(\.date) == ["2019-08-21", "2019-08-22", "2019-08-23", "2019-08-24", "2019-08-25"])
        let perDay = document.days.map { day in document.sessions.filter { $0.dayIndex == day.index }.count }
        #expect(perDay == [17, 17, 19, 17, 9])
        let slides = document.sessions.flatMap(\.links).filter { $0.url.contains("/system/event_attachments/") }
        #expect(!slides.isEmpty)
        #expect(slides.allSatisfy { $0.url.hasPrefix("https://fahrplan.events.ccc.de/system/event_attachments/") })
        #expect(document.warnings.isEmpty)
    }

    @Test func lca2020IsInBrisbaneByItsName() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("lca2020-conference.ics"), source: "lca2020-conference.ics")
        #expect(document.conference.timeZone == "Australia/Brisbane")
        #expect(document.conference.timeZoneSource == .file)
        #expect(document.conference.name == "linux-conf-au-2020")
        #expect(document.conference.releaseDate == instant("2020-01-14T19:13:25Z"))
        let welcome = try #require(document.sessions.first { $0.uid == "94@lca2020.linux.org.au" })
        #expect(wallClock(welcome.start, in: document) == "2020-01-15T09:00:00+10:00")
        #expect(
            welcome.links == [
                LinkInfo(title: welcome.url ?? "", url: "http://lca2020.linux.org.au/schedule/presentation/221/")
            ])
        #expect(document.days.count == 6)
        #expect(document.days.first?.date == "2020-01-12")
        #expect(document.days.last?.date == "2020-01-17")
    }
}
