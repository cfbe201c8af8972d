import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// Zones as the daemon names them, conference days and conference names, without a daemon.
@Suite struct ConferenceTimeTests {
    @Test(arguments: [
        ("+01:00", 3600), ("-05:30", -19_800), ("+0530", 19_800), ("+02", 7200), ("UTC", 0), ("Z", 0),
        ("UTC+01:00", 3600), ("GMT-03:00", -10_800),
    ])
    func fixedOffsetsAndUTCAreZones(name: String, seconds: Int) throws {
        let zone = try #require(ConferenceZone.timeZone(named: name))
        #expect(zone.secondsFromGMT(for: SampleSessions.now) == seconds)
    }

    @Test func ianaNamesStayNamedZones() throws {
        let zone = try #require(ConferenceZone.timeZone(named: "Europe/Brussels"))
        #expect(zone.identifier == "Europe/Brussels")
    }

    @Test(arguments: ["+1:00", "+01:0", "01:00", "+25:00", "+01:60", "Mars/Olympus", ""])
    func otherTextIsNoZone(name: String) {
        #expect(ConferenceZone.timeZone(named: name) == nil)
    }

    @Test func fixedOffsetTimesShowTheLocalClockAndTheOffset() {
        let opening = SessionSummary(CongressSchedule.opening)
        #expect(TimeDisplay(zone: .conference).span(opening) == "Fri 27 Dec 11:00–11:30 +01:00")
        #expect(TimeDisplay(zone: .fixed(ConferenceZone.utc)).span(opening) == "Fri 27 Dec 10:00–10:30 UTC")
        let india = ConferenceZone.timeZone(named: "+05:30")!
        #expect(TimeDisplay(zone: .fixed(india)).span(opening) == "Fri 27 Dec 15:30–16:00 +05:30")
    }

    @Test func aNamedZoneKeepsItsAbbreviation() {
        let nix = SessionSummary(CongressSchedule.nix)
        #expect(TimeDisplay(zone: .conference).span(nix) == "Sat 6 Feb 10:00–10:30 CET")
    }

    // MARK: Days

    @Test func withoutADayWindowOneThirtyBelongsToTheEveningBefore() throws {
        let plusOne = try #require(ConferenceZone.timeZone(named: "+01:00"))
        let night = try #require(WireDate.date(from: "2024-12-28T01:30:00+01:00"))
        let morning = try #require(WireDate.date(from: "2024-12-28T07:00:00+01:00"))
        #expect(ConferenceDays.fallbackDate(now: night, in: plusOne) == "2024-12-27")
        #expect(ConferenceDays.fallbackDate(now: morning, in: plusOne) == "2024-12-28")
        let window = try #require(ConferenceDays.fallbackWindow(of: "2024-12-27", in: plusOne))
        #expect(WireDate.string(from: window.start) == "2024-12-27T05:00:00Z")
        #expect(WireDate.string(from: window.end) == "2024-12-28T05:00:00Z")
    }

    @Test func theCurrentDayIsTheEarliestDayHoldingNow() {
        let days = [CongressSchedule.days[1], CongressSchedule.days[0]]
        #expect(ConferenceDays.currentDate(among: days) == "2024-12-27")
        #expect(ConferenceDays.currentDate(among: []) == nil)
    }

    @Test func theGridCoversTheDayWindowPastMidnight() throws {
        let sessions = [CongressSchedule.opening, CongressSchedule.lateNight].map(SessionSummary.init)
        let window = try #require(ConferenceDays.window(of: [CongressSchedule.days[0]]))
        let zone = try #require(ConferenceZone.timeZone(named: "+01:00"))
        let text = GridRenderer(width: 60, timeZone: zone, now: nil, window: window).render(sessions)
        let labels = text.split(separator: "\n").compactMap { line -> String? in
            let label = line.prefix(5)
            return label.contains(":") ? String(label) : nil
        }
        #expect(labels.first == "10:00")
        // The rows end with the last session (02:00), not with the window's empty early morning…
        #expect(labels.last == "01:30")
        #expect(labels.contains("00:00") && labels.contains("01:00"))
        // …unless now is later in the day's window: then they run to now.
        let late = try #require(WireDate.date(from: "2024-12-28T03:10:00+01:00"))
        let lateText = GridRenderer(width: 60, timeZone: zone, now: late, window: window).render(sessions)
        #expect(lateText.contains("\n03:10▶"), "\(lateText)")
    }

    @Test func aWholeDayWindowLeavesTheGridToTheSessions() throws {
        let sessions = [SessionSummary(CongressSchedule.nix)]
        let window = try #require(ConferenceDays.window(of: [CongressSchedule.days[2]]))
        let zone = try #require(ConferenceZone.timeZone(named: "Europe/Brussels"))
        let text = GridRenderer(width: 60, timeZone: zone, now: nil, window: window).render(sessions)
        #expect(text.split(separator: "\n")[1].hasPrefix("10:00"))
        #expect(text.split(separator: "\n").count == 4)
    }

    // MARK: Names

    let catalog = ConferenceCatalog(conferences: CongressSchedule.conferences.compactMap(ConferenceRecord.init))

    @Test(arguments: [
        ("38c3", "38c3"), ("38C3", "38c3"), ("38th chaos communication congress", "38c3"), ("38C3.XML", "38c3"),
        ("FOSDEM 2021", "fosdem-2021"), ("fosdem_2021.xml", "fosdem-2021"), ("Fosdem_2021", "fosdem-2021"),
    ])
    func conferencesAreNamedByNameTitleOrFile(text: String, name: String) throws {
        #expect(try catalog.resolve(text) == name)
    }

    @Test func anUnknownConferenceListsTheServedNames() {
        #expect {
            try catalog.resolve("39c3")
        } throws: { error in
            guard let error = error as? ClientError, case .unknownConference(let name, let known) = error else {
                return false
            }
            return name == "39c3" && known == ["38c3", "fosdem-2021"] && error.exitStatus == .notFound
                && error.description
                    == "almanac: unknown_conference: no conference is named \"39c3\" (known: 38c3, fosdem-2021)"
        }
    }

    @Test func theDaemonsUnknownConferenceExits4AndNamesTheConferences() {
        let listed = ClientError.daemon(.unknownConference("39c3", known: ["38c3"]))
        #expect(listed.exitStatus == .notFound)
        #expect(listed.description == "almanac: unknown_conference: no conference is named \"39c3\" (known: 38c3)")
        let terse = ClientError.daemon(
            WireError(
                code: .unknownConference, message: "no such conference",
                details: ["conferences": ["38c3", "jres-2021-22"]]))
        #expect(terse.description == "almanac: unknown_conference: no such conference (known: 38c3, jres-2021-22)")
    }

    @Test func theConferenceZoneIsSharedOnlyWhenThereIsOne() {
        #expect(catalog.sharedZone(conference: "38c3")?.secondsFromGMT() == 3600)
        #expect(catalog.sharedZone(conference: nil) == nil)
    }
}
