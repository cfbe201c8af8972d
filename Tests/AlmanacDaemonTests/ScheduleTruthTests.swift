import AlmanacDaemon
import AlmanacWire
import Foundation
import ObjectGraph
import ObjectGraphXML
import Schedules
import Testing

/// Made-up frab XML files for the daemon's schedule rules (issue #23).
enum FrabSample {
    struct Event {
        var guid: String
        var date: String?
        var start: String
        var title: String
        var room = "Hall 1"
        var description: String?
        var duration = "00:30"
    }

    static func xml(
        acronym: String?, title: String? = "Test Conference", version: String? = nil,
        zone: String? = nil, day: String = "2021-02-06", dayWindow: (String, String)? = nil,
        events: [Event]
    ) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<schedule>\n"
        if let version { text += "  <version>\(version)</version>\n" }
        text += "  <conference>\n"
        if let acronym { text += "    <acronym>\(acronym)</acronym>\n" }
        if let title { text += "    <title>\(title)</title>\n" }
        if let zone { text += "    <time_zone_name>\(zone)</time_zone_name>\n" }
        text += "  </conference>\n"
        let window = dayWindow.map { " start=\"\($0.0)\" end=\"\($0.1)\"" } ?? ""
        text += "  <day index=\"1\" date=\"\(day)\"\(window)>\n    <room name=\"Hall 1\">\n"
        for event in events {
            text += "      <event guid=\"\(event.guid)\">\n"
            if let date = event.date { text += "        <date>\(date)</date>\n" }
            text += "        <start>\(event.start)</start>\n        <duration>\(event.duration)</duration>\n"
            text += "        <room>\(event.room)</room>\n        <title>\(event.title)</title>\n"
            if let description = event.description { text += "        <description>\(description)</description>\n" }
            text += "      </event>\n"
        }
        return text + "    </room>\n  </day>\n</schedule>\n"
    }
}

@Suite("Schedules that tell the truth: the daemon")
struct ScheduleTruthTests {
    static let releaseOne = FrabSample.xml(
        acronym: "tc", version: "1.9", zone: "Europe/Berlin",
        events: [
            .init(guid: "a", start: "10:00", title: "Opening"),
            .init(guid: "b", start: "11:00", title: "Removed later"),
            .init(guid: "c", start: "12:00", title: "Closing"),
        ])
    static let releaseTwo = FrabSample.xml(
        acronym: "tc", version: "1.10", zone: "Europe/Berlin",
        events: [
            .init(guid: "a", start: "10:00", title: "Opening"),
            .init(guid: "c", start: "12:00", title: "Closing"),
            .init(guid: "d", start: "13:00", title: "Added later"),
        ])

    func stores(_ fixture: CoreFixture) throws -> [WireResponse.StoreInfo] {
        try WireResponse.Stores(json: try fixture.request("stores")).stores
    }

    func count(_ fixture: CoreFixture, _ entity: String = "Session") throws -> Int64? {
        try fixture.request("count", ["entity": .string(entity)])["count"]?.intValue
    }

    @Test func theSameConferenceTwiceServesTheNewerReleaseOnly() throws {
        // "1.10" is newer than "1.9": versions compare as numbers. The older file sorts last by name.
        let fixture = try CoreFixture(files: [], written: ["tc.xml": Self.releaseTwo, "tc (old).xml": Self.releaseOne])
        defer { fixture.remove() }
        #expect(try count(fixture) == 3)
        let listed = try stores(fixture)
        let older = try #require(listed.first { $0.file.hasSuffix("tc (old).xml") })
        let newer = try #require(listed.first { $0.file.hasSuffix("/tc.xml") })
        #expect(older.status == .shadowed)
        #expect(older.shadowedBy == newer.file)
        #expect(newer.status == .serving && newer.shadowedBy == nil)
        let titles = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]]])["objects"]?
            .arrayValue?.compactMap { $0["values"]?["title"]?.stringValue }
        #expect(titles == ["Opening", "Closing", "Added later"])

        // Removing the newer file brings the older release back.
        let newerURL = URL(fileURLWithPath: newer.file)
        try FileManager.default.removeItem(at: newerURL)
        #expect(fixture.core.library.detach(newerURL) == .detached)
        #expect(try count(fixture) == 3)
        let titlesAfter = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]]])["objects"]?
            .arrayValue?.compactMap { $0["values"]?["title"]?.stringValue }
        #expect(titlesAfter == ["Opening", "Removed later", "Closing"])
        #expect(try stores(fixture).allSatisfy { $0.status == .serving })
    }

    /// Releases are sorted out per conference: a file that turns into another conference's schedule hands its old
    /// conference back to the release it shadowed, and that conference's changes go once no file serves it.
    @Test func aFileThatTurnsIntoAnotherConferenceGivesTheOldOneBack() throws {
        let fixture = try CoreFixture(files: [], written: ["tc-1.xml": Self.releaseOne])
        defer { fixture.remove() }
        let older = fixture.inbox.appendingPathComponent("tc-1.xml")
        let newer = fixture.inbox.appendingPathComponent("tc-2.xml")
        try Data(Self.releaseTwo.utf8).write(to: newer)
        #expect(fixture.core.library.attach(newer) == .attached)
        #expect(fixture.core.library.entry(for: older)?.shadowedBy == newer.standardizedFileURL)
        #expect(fixture.core.library.changes(forConference: "tc")?.added.count == 1)

        // The newer file now holds another conference: tc's older release serves again, with tc's changes kept.
        let other = FrabSample.xml(acronym: "oc", events: [.init(guid: "o", start: "09:00", title: "Other")])
        try Data(other.utf8).write(to: newer)
        #expect(fixture.core.library.attach(newer) == .replaced)
        #expect(fixture.core.library.entry(for: older)?.shadowedBy == nil)
        #expect(try stores(fixture).allSatisfy { $0.status == .serving })
        #expect(try count(fixture) == 4)
        #expect(fixture.core.library.changes(forConference: "tc")?.added.count == 1)

        // No file serves tc any more: its changes are forgotten.
        try FileManager.default.removeItem(at: older)
        #expect(fixture.core.library.detach(older) == .detached)
        #expect(fixture.core.library.changes(forConference: "tc") == nil)
        #expect(try count(fixture) == 1)
    }

    @Test func aNewerReleaseInAnotherFileReportsRemovedSessionsWithTheirURI() throws {
        let fixture = try CoreFixture(files: [], written: ["tc-1.xml": Self.releaseOne])
        defer { fixture.remove() }
        let before = try fixture.request("fetch", ["entity": "Session", "predicate": "guid == 'b'"])
        let oldURI = try #require(before["objects"]?.arrayValue?.first?["uri"]?.stringValue)
        let second = fixture.inbox.appendingPathComponent("tc-2.xml")
        try Data(Self.releaseTwo.utf8).write(to: second)
        #expect(fixture.core.library.attach(second) == .attached)

        let body = try fixture.request("changes", ["conference": "tc"])
        let changes = try WireResponse.Changes(json: body)
        #expect(changes.added.map { $0.object.values["title"]?.stringValue } == ["Added later"])
        let removed = try #require(changes.cancelled.first)
        #expect(changes.cancelled.count == 1)
        #expect(removed.object.uri == oldURI)
        #expect(removed.previous["status"]?.stringValue == "removed")
        #expect(removed.previous["title"]?.stringValue == "Removed later")
        #expect(removed.object.values["guid"]?.stringValue == "b")
        // Its old time, as a person reads it: 11:00 in Berlin in February.
        let start = try #require(removed.previous["start"]?.stringValue.flatMap(WireDate.date(from:)))
        #expect(WireDate.string(from: start, in: TimeZone(identifier: "Europe/Berlin")) == "2021-02-06T11:00:00+01:00")
    }

    @Test func conferencesAreNamedByAcronymTitleOrFileName() throws {
        let fixture = try CoreFixture(
            files: [],
            written: [
                "tc-1.xml": Self.releaseOne,
                "jres.xml": FrabSample.xml(
                    acronym: nil, title: "JRES 2021/22", events: [.init(guid: "j", start: "10:00", title: "J")]),
                "fosdem_2021.xml": FrabSample.xml(
                    acronym: nil, title: nil, events: [.init(guid: "f", start: "10:00", title: "F")]),
            ])
        defer { fixture.remove() }
        let names = try fixture.request("fetch", ["entity": "Conference", "sort": [["key": "acronym"]]])["objects"]?
            .arrayValue?.compactMap { $0["values"]?["acronym"]?.stringValue }
        #expect(names == ["fosdem-2021", "jres-2021-22", "tc"])
        let listed = try stores(fixture)
        #expect(Set(listed.compactMap(\.conference)) == ["fosdem-2021", "jres-2021-22", "tc"])

        // A release arrives for tc; `changes` finds it by acronym in any case, title or file name.
        try Data(Self.releaseTwo.utf8).write(to: fixture.inbox.appendingPathComponent("tc-1.xml"))
        #expect(fixture.core.library.attach(fixture.inbox.appendingPathComponent("tc-1.xml")) == .replaced)
        for name in ["tc", "TC", "Test Conference", "tc-1.xml", "tc-1"] {
            let body = try fixture.request("changes", ["conference": .string(name)])
            #expect(try WireResponse.Changes(json: body).added.count == 1, "\(name)")
        }
        // A near miss is an error naming what is served; a known conference without an earlier release is not_found.
        let unknown = try #require(fixture.error("changes", ["conference": "38C3"]))
        #expect(unknown.code == .unknownConference)
        #expect(unknown.conferences == ["fosdem-2021", "jres-2021-22", "tc"])
        #expect(fixture.error("changes", ["conference": "JRES 2021/22"])?.code == .notFound)
    }

    @Test func searchLooksAtDescriptionsAndListsTitleMatchesFirst() throws {
        let fixture = try CoreFixture(
            files: [],
            written: [
                "s.xml": FrabSample.xml(
                    acronym: "s", zone: "UTC",
                    events: [
                        .init(guid: "1", start: "09:00", title: "Opening", description: "Why we love R\u{00FC}st"),
                        .init(guid: "2", start: "10:00", title: "Unrelated", description: "Nothing here"),
                        .init(guid: "3", start: "11:00", title: "Rust in production"),
                        .init(guid: "4", start: "12:00", title: "Closing", description: "rust, again"),
                    ])
            ])
        defer { fixture.remove() }
        let reply = try fixture.request(
            "template",
            [
                "name": "SearchSessions", "variables": ["TEXT": "rust"],
                "sort": [["key": "start"]],
            ])
        let titles = reply["objects"]?.arrayValue?.compactMap { $0["values"]?["title"]?.stringValue }
        #expect(titles == ["Rust in production", "Opening", "Closing"])
        #expect(reply["total"]?.intValue == 3)
        let page = try fixture.request(
            "template",
            [
                "name": "SearchSessions", "variables": ["TEXT": "rust"],
                "limit": 1, "offset": 1,
            ])
        #expect(page["objects"]?.arrayValue?.compactMap { $0["values"]?["title"]?.stringValue } == ["Opening"])
    }

    @Test func perFileSettingsGiveAZoneAndANameAndBadOnesKeepTheEarlierReading() throws {
        let legacy = FrabSample.xml(
            acronym: nil, title: "FOSDEM 2021",
            events: [
                .init(guid: "k", start: "10:00", title: "Keynote")
            ])
        let settings =
            #"{"files": {"fosdem*.xml": {"timeZone": "Europe/Brussels", "acronym": "fosdem21"}, "*.xml": {"timeZone": "Asia/Tokyo"}}}"#
        let fixture = try CoreFixture(files: [], written: ["fosdem-2021.xml": legacy], settings: settings)
        defer { fixture.remove() }
        func keynote() throws -> String? {
            let reply = try fixture.request(
                "fetch", ["entity": "Session", "properties": ["start", "conference.acronym"]])
            let values = reply["objects"]?.arrayValue?.first?["values"]
            let start = values?["start"]?.stringValue.flatMap(WireDate.date(from:))
            return start.map { WireDate.string(from: $0, in: TimeZone(identifier: "Europe/Brussels")) }
        }
        // The first matching glob wins.
        var entry = try #require(try stores(fixture).first { $0.file.hasSuffix("fosdem-2021.xml") })
        #expect(entry.timeZone == "Europe/Brussels" && entry.timeZoneSource == "configured")
        #expect(entry.conference == "fosdem21" && entry.settingsError == nil)
        #expect(try keynote() == "2021-02-06T10:00:00+01:00")

        // An unknown zone is reported beside the file, which keeps its reading.
        fixture.core.library.updateFileSettings([FileSettings(pattern: "fosdem*", timeZone: "Europe/Brusels")])
        entry = try #require(try stores(fixture).first { $0.file.hasSuffix("fosdem-2021.xml") })
        #expect(entry.settingsError?.contains("Europe/Brusels") == true)
        #expect(entry.timeZone == "Europe/Brussels" && entry.conference == "fosdem21")
        #expect(try keynote() == "2021-02-06T10:00:00+01:00")

        // Good settings again: the file is read again with them, without a restart.
        let outcomes = fixture.core.library.updateFileSettings([
            FileSettings(pattern: "fosdem*", timeZone: "Europe/Lisbon")
        ])
        #expect(outcomes.map(\.1) == [.replaced])
        entry = try #require(try stores(fixture).first { $0.file.hasSuffix("fosdem-2021.xml") })
        #expect(entry.settingsError == nil && entry.timeZone == "Europe/Lisbon" && entry.conference == "fosdem-2021")
        #expect(try keynote() == "2021-02-06T11:00:00+01:00")
    }

    @Test func settingsFilesAreCheckedAndKeepTheirOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration(watchFolders: [], stateFolder: folder, socketPath: "/nonexistent")
        let file = configuration.configurationFile
        try Data(
            #"{"files": {"z*": {"dayChange": "05:30"}, "a*": {"dayChange": "25:00", "timeZone": "Mars/Olympus"}}}"#.utf8
        )
        .write(to: file)
        try configuration.loadConfigurationFile()
        #expect(configuration.fileSettings.map(\.pattern) == ["z*", "a*"])
        #expect(configuration.fileSettings[0].error == nil)
        #expect(configuration.fileSettings[0].readerConfiguration?.dayChange == 5 * 3600 + 30 * 60)
        let bad = try #require(configuration.fileSettings[1].error)
        #expect(bad.contains("Mars/Olympus") && bad.contains("25:00"))
        #expect(configuration.fileSettings[1].readerConfiguration == nil)

        try Data(#"{"files": {"x*": {"colour": "red"}}}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try configuration.loadConfigurationFile() }
        try Data(#"{"files": ["x*"]}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try configuration.loadConfigurationFile() }
    }

    @Test func favouritesMadeUnderOldNamesMoveOnceToTodaysNames() throws {
        let fixture = try CoreFixture(
            files: [],
            written: [
                "fosdem_2021.xml": FrabSample.xml(
                    acronym: nil, title: "FOSDEM Twenty-One",
                    events: [
                        .init(guid: "f", start: "10:00", title: "F")
                    ])
            ])
        defer { fixture.remove() }
        for (conference, guid) in [("file:fosdem_2021", "f"), ("calendar:JRES 2021/22", "j"), ("tc", "a")] {
            _ = try fixture.request(
                "insert",
                [
                    "entity": "Favorite",
                    "values": [
                        "conferenceAcronym": .string(conference), "sessionGUID": .string(guid),
                    ],
                ])
        }
        #expect(try fixture.core.migrateConferenceNames() == 2)
        let favorites = try fixture.request("fetch", ["entity": "Favorite", "sort": [["key": "sessionGUID"]]])
        let names = favorites["objects"]?.arrayValue?.compactMap { $0["values"]?["conferenceAcronym"]?.stringValue }
        #expect(names == ["tc", "fosdem-twenty-one", "jres-2021-22"])
        let runs = try fixture.request("count", ["entity": "Run", "predicate": "note != nil"])
        #expect(runs["count"]?.intValue == 1)
        // Once: a later call (a later start) changes nothing.
        _ = try fixture.request(
            "insert",
            [
                "entity": "Favorite",
                "values": [
                    "conferenceAcronym": "file:other", "sessionGUID": "o",
                ],
            ])
        #expect(try fixture.core.migrateConferenceNames() == 0)
    }

    /// A wafer-style file (DebConf 23 in Kochi): the zone is named, but every time, the day windows and the day dates
    /// are written in UTC, so `<day date>` is the UTC date of a window that starts at 03:00 local the next day.
    static let utcWritten = """
        <?xml version="1.0" encoding="UTF-8"?>
        <schedule><version></version>
          <conference><title>DebConf 23</title><acronym>debconf23</acronym><time_zone_name>Asia/Kolkata</time_zone_name></conference>
          <day date="2023-09-09" start="2023-09-09T21:30:00+00:00" end="2023-09-10T21:29:59+00:00" index="1">
            <room name="Elsewhere">
              <event id="1" guid="b1"><date>2023-09-10T02:00:00+00:00</date><start>07:30</start><duration>01:00</duration><room>Elsewhere</room><title>Breakfast</title></event>
              <event id="2" guid="d1"><date>2023-09-10T14:00:00+00:00</date><start>19:30</start><duration>01:30</duration><room>Elsewhere</room><title>Dinner</title></event>
            </room>
          </day>
          <day date="2023-09-10" start="2023-09-10T21:30:00+00:00" end="2023-09-11T21:29:59+00:00" index="2">
            <room name="Elsewhere">
              <event id="3" guid="b2"><date>2023-09-11T02:00:00+00:00</date><start>07:30</start><duration>01:00</duration><room>Elsewhere</room><title>Breakfast</title></event>
              <event id="4" guid="l2"><date>2023-09-11T19:00:00+00:00</date><start>00:30</start><duration>01:00</duration><room>Elsewhere</room><title>Late hacking</title></event>
            </room>
          </day>
        </schedule>
        """

    /// A CCC-style day: it runs from 11:00 to 04:00 the next morning, as the file's `<day start end>` says.
    static let congress = FrabSample.xml(
        acronym: "c", zone: "Europe/Berlin", day: "2014-12-27",
        dayWindow: ("2014-12-27T11:00:00+01:00", "2014-12-28T04:00:00+01:00"),
        events: [
            .init(guid: "m", date: "2014-12-27T11:30:00+01:00", start: "11:30", title: "Morning"),
            .init(guid: "n", date: "2014-12-28T01:30:00+01:00", start: "01:30", title: "Night"),
        ])

    @Test func sessionsOnDayFollowTheConferenceDays() throws {
        let fixture = try CoreFixture(
            files: [], written: ["debconf.xml": Self.utcWritten, "congress.xml": Self.congress])
        defer { fixture.remove() }
        func titles(_ day: String, _ conference: String) throws -> [String] {
            let reply = try fixture.request(
                "template",
                [
                    "name": "SessionsOnDay", "variables": ["DAY": .string(day)],
                    "properties": ["title", "conference.acronym"],
                ])
            return (reply["objects"]?.arrayValue ?? [])
                .filter { $0["values"]?["conference.acronym"]?.stringValue == conference }
                .compactMap { $0["values"]?["title"]?.stringValue }
        }
        // The Kochi days are named by their local dates, and hold their own meals.
        #expect(try titles("2023-09-10", "debconf23") == ["Breakfast", "Dinner"])
        #expect(try titles("2023-09-11", "debconf23") == ["Breakfast", "Late hacking"])
        #expect(try titles("2023-09-09", "debconf23") == [])
        // The congress night belongs to the day it started on.
        #expect(try titles("2014-12-27", "c") == ["Morning", "Night"])
        #expect(try titles("2014-12-28", "c") == [])
        let days = try fixture.request(
            "fetch",
            [
                "entity": "Day", "sort": [["key": "start"]],
                "properties": ["date", "start", "end", "conference.acronym"],
            ])
        let kochi = TimeZone(identifier: "Asia/Kolkata")
        let first = try #require(
            days["objects"]?.arrayValue?.first { $0["values"]?["date"]?.stringValue == "2023-09-10" })
        let start = try #require(first["values"]?["start"]?.stringValue.flatMap(WireDate.date(from:)))
        #expect(WireDate.string(from: start, in: kochi) == "2023-09-10T03:00:00+05:30")
    }

    @Test func repeatRunsAndDuplicatesAreKeptApartAndCountedAsWarnings() throws {
        let file = FrabSample.xml(
            acronym: "w", zone: "Europe/Berlin",
            events: [
                .init(guid: "ws", date: "2021-02-06T10:00:00+01:00", start: "10:00", title: "Workshop"),
                .init(guid: "ws", date: "2021-02-06T15:00:00+01:00", start: "15:00", title: "Workshop"),
                .init(guid: "ws", date: "2021-02-06T10:00:00+01:00", start: "10:00", title: "Workshop"),
            ])
        let fixture = try CoreFixture(files: [], written: ["w.xml": file])
        defer { fixture.remove() }
        let reply = try fixture.request("fetch", ["entity": "Session", "sort": [["key": "start"]]])
        let objects = reply["objects"]?.arrayValue ?? []
        #expect(objects.count == 2)
        let guids = objects.compactMap { $0["values"]?["guid"]?.stringValue }
        #expect(Set(guids).count == 2 && guids.first == "ws")
        let entry = try #require(try stores(fixture).first { $0.file.hasSuffix("w.xml") })
        #expect(entry.warnings.count >= 2)
        #expect(entry.warnings.messages.filter { $0.contains("line") }.count >= 2)
        #expect(fixture.core.library.warnings(for: URL(fileURLWithPath: entry.file)).count == entry.warnings.count)
    }

    @Test(arguments: ["sqlite", "binary", "xml"])
    func coreDataSchedulesOfTheEarlierModelAreServedReadOnly(_ kind: String) throws {
        let versionOne = CoreFixture.samples.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Schedules/ObjectModel/Schedule.xcdatamodeld/Schedule.xcdatamodel")
        let model = try ManagedObjectModel(contentsOf: versionOne)
        #expect(model.entitiesByName["Link"] == nil, "the version 1 model file is not version 1")
        let fixture = try CoreFixture(files: [])
        defer { fixture.remove() }
        let scratch = fixture.root.appendingPathComponent("scratch-\(kind)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let file = scratch.appendingPathComponent("old.\(kind)")
        let type: PersistentStoreType = kind == "sqlite" ? .sqlite : (kind == "xml" ? .xml : .binary)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            type: type, configurationName: "Schedule", at: file,
            options: [PersistentStoreOptionKey(rawValue: "ObjectGraphSQLiteRollbackJournalOption"): true])
        let context = ManagedObjectContext(coordinator: coordinator)
        let conference = context.insertNewObject(forEntityName: "Conference")
        conference.setValue("old26", forKey: "acronym")
        for index in 0..<3 {
            let session = context.insertNewObject(forEntityName: "Session")
            session.setValue("g\(index)", forKey: "guid")
            session.setValue("Talk \(index)", forKey: "title")
            session.setValue(Date(timeIntervalSince1970: 1_800_000_000 + Double(index) * 3600), forKey: "start")
            session.setValue(conference, forKey: "conference")
        }
        try context.save()
        try coordinator.remove(store)
        let before = try Data(contentsOf: file)
        let target = fixture.inbox.appendingPathComponent("old.\(kind)")
        try FileManager.default.copyItem(at: file, to: target)

        #expect(fixture.core.library.attach(target) == .attached)
        let entry = try #require(try stores(fixture).first { $0.file == target.path })
        #expect(entry.error == nil && entry.isReadOnly)
        let reply = try fixture.request(
            "fetch",
            [
                "entity": "Session", "sort": [["key": "start"]],
                "properties": ["title", "slug", "conference.acronym"],
            ])
        let objects = reply["objects"]?.arrayValue ?? []
        #expect(objects.compactMap { $0["values"]?["title"]?.stringValue } == ["Talk 0", "Talk 1", "Talk 2"])
        #expect(objects.allSatisfy { $0["values"]?["slug"] == .null })
        #expect(objects.first?["values"]?["conference.acronym"]?.stringValue == "old26")
        // The user's file is served as it is, never migrated in place.
        #expect(try Data(contentsOf: target) == before)
    }

    @Test func aPersonalStoreOfTheEarlierModelIsMigratedAndKeepsItsFavourites() throws {
        let versionOne = CoreFixture.samples.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Schedules/ObjectModel/Schedule.xcdatamodeld/Schedule.xcdatamodel")
        let fixture = try CoreFixture(files: ["swift-server-days-2026.xml"]) { state in
            let model = try ManagedObjectModel(contentsOf: versionOne)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                type: .sqlite, configurationName: "Personal", at: state.appendingPathComponent("personal.sqlite"))
            let context = ManagedObjectContext(coordinator: coordinator)
            let favorite = context.insertNewObject(forEntityName: "Favorite")
            favorite.setValue("ssd26", forKey: "conferenceAcronym")
            favorite.setValue("kept-guid", forKey: "sessionGUID")
            favorite.setValue("with Ana", forKey: "note")
            try context.save()
            try coordinator.remove(store)
        }
        defer { fixture.remove() }
        let favorites = try fixture.request("fetch", ["entity": "Favorite"])["objects"]?.arrayValue ?? []
        #expect(favorites.count == 1)
        #expect(favorites.first?["values"]?["sessionGUID"]?.stringValue == "kept-guid")
        #expect(favorites.first?["values"]?["note"]?.stringValue == "with Ana")
        // The new attributes work in the migrated store.
        _ = try fixture.request(
            "insert",
            [
                "entity": "Favorite",
                "values": [
                    "conferenceAcronym": "ssd26", "sessionGUID": "new-guid", "sessionTitle": "A talk",
                    "sessionStart": "2026-11-23T09:30:00+01:00",
                ],
            ])
        let snapshot = try fixture.request("fetch", ["entity": "Favorite", "predicate": "sessionTitle == 'A talk'"])
        #expect(snapshot["objects"]?.arrayValue?.count == 1)
    }
}
