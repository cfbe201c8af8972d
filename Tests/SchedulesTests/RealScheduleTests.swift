import Foundation
import Testing

@testable import Schedules

@Suite("Real schedule files", .enabled(if: SharedSchedules.isAvailable, SharedSchedules.skipReason))
struct RealScheduleTests {
    @Test func fosdem2021LegacyXMLHas773SessionsOnTwoDays() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("fosdem-2021-schedule.xml"), source: "fosdem-2021-schedule.xml")
        #expect(document.format == .frabXML)
        #expect(document.sessions.count == 773)
        #expect(document.days.map(\.date) == ["2021-02-06", "2021-02-07"])
        #expect(Set(document.sessions.map(\.dayIndex)) == [1, 2])
        #expect(document.conference.version == nil)
        #expect(document.conference.identity.description == "file:fosdem-2021-schedule")
        #expect(document.sessions.allSatisfy { $0.identity.kind == .id })
        #expect(document.rooms.count > 100)
        let welcome = try #require(document.sessions.first { $0.eventID == .number(11795) })
        #expect(welcome.abstract == "<p>FOSDEM welcome and opening talk.</p>")
        #expect(welcome.duration == 25)
    }

    @Test func thirtyFirstC3ReleasesHave137And138Sessions() throws {
        let old = try ScheduleReader.read(
            SharedSchedules.data("31c3-schedule-v1.3.xml"), source: "31c3-schedule-v1.3.xml")
        let new = try ScheduleReader.read(
            SharedSchedules.data("31c3-schedule-v1.5.xml"), source: "31c3-schedule-v1.5.xml")
        #expect(old.sessions.count == 137)
        #expect(new.sessions.count == 138)
        #expect(old.conference.identity == new.conference.identity)
        #expect(old.conference.version?.hasPrefix("1.3") == true)
        #expect(old.days.count == 4)
        // 4 days running 11:00 to 04:00: some sessions start after midnight of their programme day.
        let pastMidnight = old.sessions.filter { session in
            let day = old.days.first { $0.index == session.dayIndex }!
            return session.start.timeIntervalSince(day.midnight) >= 86_400
        }
        #expect(!pastMidnight.isEmpty)
    }

    @Test func thirtyFirstC3ChangesByGuid() throws {
        let old = try ScheduleReader.read(
            SharedSchedules.data("31c3-schedule-v1.3.xml"), source: "31c3-schedule-v1.3.xml")
        let new = try ScheduleReader.read(
            SharedSchedules.data("31c3-schedule-v1.5.xml"), source: "31c3-schedule-v1.5.xml")
        let changes = ScheduleChanges.between(old: old, new: new)
        #expect(changes.added.count == 3)
        #expect(changes.cancelled.count == 2)
        #expect(changes.cancelled.allSatisfy { $0.reason == .removed })
        let relocated = changes.moved.filter(\.isRelocated)
        #expect(relocated.count == 1)
        let move = try #require(relocated.first)
        #expect(move.new.title == "Let's Encrypt")
        #expect(move.oldRoom == "Saal 6")
        #expect(move.newRoom == "Saal 2")
        #expect(changes.changed.filter { $0.fields.contains(.persons) }.count == 5)
        #expect(changes.added.allSatisfy { $0.identity.kind == .guid })
    }

    @Test func lca2020CalendarHas262SessionsInBrisbane() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("lca2020-conference.ics"), source: "lca2020-conference.ics")
        #expect(document.format == .iCalendar)
        #expect(document.sessions.count == 262)
        #expect(document.conference.timeZone == "Australia/Brisbane")
        #expect(document.warnings.isEmpty)
        let welcome = try #require(document.sessions.first { $0.uid == "94@lca2020.linux.org.au" })
        // DTSTART;TZID=Australia/Brisbane:20200115T090000 is 23:00 UTC the day before (UTC+10, no DST).
        #expect(welcome.start == Date(timeIntervalSince1970: 1_579_042_800))
        #expect(welcome.roomName == "Arena")
        #expect(document.sessions.contains { $0.roomName == nil })
    }

    @Test func camp2019JSONHas79Sessions() throws {
        let document = try ScheduleReader.read(
            SharedSchedules.data("camp2019-schedule.json"), source: "camp2019-schedule.json")
        #expect(document.format == .frabJSON)
        #expect(document.sessions.count == 79)
        #expect(document.conference.timeZone == "Europe/Berlin")
        #expect(document.conference.acronym == "Camp2019")
        #expect(document.days.count == 5)
    }

    @Test func malformed31c3ReleaseIsRejectedNamingTheLine() throws {
        let data = try SharedSchedules.data("31c3-schedule-v1.4-malformed.xml")
        #expect(ScheduleFormat.sniff(data) == .frabXML)
        let error = try #require(throws: ScheduleError.self) {
            try ScheduleReader.read(data, source: "31c3-schedule-v1.4-malformed.xml")
        }
        #expect(error.code == .notWellFormed)
        #expect(error.line == 2)
        #expect(error.source == "31c3-schedule-v1.4-malformed.xml")
        #expect(error.description.contains(":2:"))
    }
}
