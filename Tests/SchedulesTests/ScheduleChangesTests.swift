import Foundation
import Testing

@testable import Schedules

@Suite struct ScheduleChangesTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    static func session(
        _ guid: String, minutes: Double = 0, room: String = "A", title: String? = nil,
        persons: [String] = ["Ann"], abstract: String? = nil, status: SessionStatus = .confirmed
    ) -> SessionInfo {
        let start = base.addingTimeInterval(minutes * 60)
        return SessionInfo(
            guid: guid, title: title ?? guid, abstract: abstract, start: start, end: start.addingTimeInterval(1800),
            status: status, roomName: room, persons: persons.map { PersonInfo(name: $0) })
    }

    static func document(_ sessions: [SessionInfo]) -> ScheduleDocument {
        ScheduleDocument(
            conference: ConferenceInfo(acronym: "c", source: "c.xml"), sessions: sessions, format: .frabXML)
    }

    @Test func reportsEveryCategory() throws {
        let old = Self.document([
            Self.session("same"), Self.session("removed", minutes: 10), Self.session("cancel", minutes: 20),
            Self.session("moveRoom", minutes: 30), Self.session("moveTime", minutes: 40),
            Self.session("edit", minutes: 50, persons: ["Ann"], abstract: "old"),
            Self.session("wasCancelled", minutes: 60, status: .cancelled),
        ])
        let new = Self.document([
            Self.session("same"), Self.session("cancel", minutes: 20, status: .cancelled),
            Self.session("moveRoom", minutes: 30, room: "B"), Self.session("moveTime", minutes: 5),
            Self.session("edit", minutes: 50, title: "Edited", persons: ["Ann", "Bob"], abstract: "new"),
            Self.session("wasCancelled", minutes: 60), Self.session("added", minutes: 70),
        ])
        let changes = ScheduleChanges.between(old: old, new: new)
        #expect(changes.added.map(\.guid) == ["wasCancelled", "added"])
        #expect(changes.cancelled.map(\.session.guid) == ["removed", "cancel"])
        #expect(changes.cancelled.map(\.reason) == [.removed, .statusCancelled])
        #expect(changes.moved.map(\.identity.value) == ["moveTime", "moveRoom"])
        #expect(changes.moved[0].isRescheduled && !changes.moved[0].isRelocated)
        #expect(changes.moved[1].oldRoom == "A" && changes.moved[1].newRoom == "B")
        #expect(changes.changed.count == 1)
        #expect(changes.changed[0].fields == [.title, .abstract, .persons])
        #expect(!changes.isEmpty)
    }

    @Test func identicalReleasesHaveNoChanges() {
        let document = Self.document([Self.session("a"), Self.session("b", minutes: 5)])
        #expect(ScheduleChanges.between(old: document, new: document).isEmpty)
    }

    @Test func orderingIsByStartThenIdentity() {
        let new = Self.document([Self.session("z", minutes: 10), Self.session("b"), Self.session("a")])
        let changes = ScheduleChanges.between(old: Self.document([]), new: new)
        #expect(changes.added.map(\.guid) == ["a", "b", "z"])
    }
}

@Suite struct IdentityTests {
    @Test func sessionIdentityPrecedence() {
        let start = Date(timeIntervalSince1970: 0)
        #expect(
            SessionInfo(guid: "G", code: "C", eventID: .number(1), title: "t", start: start, end: start).identity
                .description == "guid:G")
        #expect(
            SessionInfo(code: "C", eventID: .number(1), title: "t", start: start, end: start).identity.description
                == "code:C")
        #expect(
            SessionInfo(eventID: .number(1), uid: "U", title: "t", start: start, end: start).identity.description
                == "id:1")
        #expect(SessionInfo(uid: "U", title: "t", start: start, end: start).identity.description == "uid:U")
        #expect(
            SessionInfo(uid: "U", recurrenceInstant: start, title: "t", start: start, end: start).identity.description
                == "uid:U@19700101T000000Z")
        #expect(SessionInfo(title: "t", start: start, end: start).identity.description == "title:t@19700101T000000Z")
    }

    @Test func conferenceIdentityPrecedence() {
        #expect(
            ConferenceInfo(acronym: "31c3", source: "x.xml", calendarName: "N").identity.description == "acronym:31c3")
        #expect(ConferenceInfo(source: "x.ics", calendarName: "N").identity.description == "calendar:N")
        #expect(ConferenceInfo(source: "https://example.org/a/lca2020.ics?x=1").identity.description == "file:lca2020")
    }
}
