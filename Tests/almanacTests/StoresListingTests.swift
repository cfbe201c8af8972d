import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// `almanac stores` as a person reads it at 80 and 120 columns, and as scripts read it.
@Suite struct StoresListingTests {
    static let inbox = "/var/lib/almanac/inbox/"

    static let stores: [WireResponse.StoreInfo] = [
        .init(
            id: "6F1C2A4E-0B7D-4C59-9E3A-1D2B3C4D5E6F", file: inbox + "38c3.xml", type: "frab", isReadOnly: true,
            objects: 1234, status: .serving, conference: "38c3", conferenceTitle: "38th Chaos Communication Congress",
            timeZone: "Europe/Berlin", timeZoneSource: "file",
            warnings: .init(
                count: 2,
                messages: [
                    "line 812: guid 6a1c repeated at 14:00: kept as a second run",
                    "line 950: duplicate of line 948 merged",
                ])),
        .init(
            id: "0D9E8F7A-6B5C-4D3E-2F1A-0B9C8D7E6F5A", file: inbox + "38c3 (1).xml", type: "frab", isReadOnly: true,
            objects: 1180, status: .shadowed, conference: "38c3", timeZone: "+01:00", timeZoneSource: "offsets",
            shadowedBy: inbox + "38c3.xml"),
        .init(
            id: "1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D", file: inbox + "fosdem_2021.xml", type: "frab", isReadOnly: true,
            objects: 702, status: .serving, conference: "fosdem-2021", timeZone: "UTC", timeZoneSource: "assumed",
            warnings: .init(count: 1, messages: ["no time zone in the file: UTC assumed"]),
            settingsError: "unknown time zone Europe/Brusels"),
        .init(
            id: "", file: inbox + "broken.ics", type: "", isReadOnly: true, objects: 0,
            error: "line 3: expected BEGIN:VCALENDAR"),
        .init(
            id: "9C8B7A6F-5E4D-4C3B-2A1F-0E9D8C7B6A5F", file: "/var/lib/almanac/favorites.sqlite", type: "sqlite",
            configuration: "Personal", isReadOnly: false, objects: 3),
    ]

    func table(width: Int) -> [String] {
        let listing = StoresCommand.listing(
            Self.stores, objects: [], display: TimeDisplay(zone: .conference),
            sessions: ["6F1C2A4E-0B7D-4C59-9E3A-1D2B3C4D5E6F": 1010, "1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D": 773])
        return ListingPrinter(format: .table, width: width, colors: false).render(listing)
            .split(separator: "\n").map(String.init)
    }

    @Test func at120ColumnsEveryFieldIsReadable() {
        #expect(
            table(width: 120) == [
                "FILE              CONFERENCE   FORMAT  ZONE              STATUS                     SESSIONS  WARN  ERROR",
                "38c3.xml          38c3         frab    Europe/Berlin     serving                        1010     2",
                "38c3 (1).xml      38c3         frab    +01:00 (offsets)  shadowed → yields to…             —",
                "fosdem_2021.xml   fosdem-2021  frab    UTC (assumed!)    serving                         773     1  settings: unknown…",
                "broken.ics                                               failed                            —        line 3: expected…",
                "favorites.sqlite               sqlite                    serving                           0",
            ]
        )
    }

    @Test func at80ColumnsTheTableFitsAndKeepsTheFileNames() {
        let lines = table(width: 80)
        #expect(lines.allSatisfy { TextWidth.of($0) <= 80 }, "\(lines)")
        for name in ["38c3.xml", "38c3 (1).xml", "fosdem_2021.xml", "broken.ics", "favorites.sqlite"] {
            #expect(lines.contains { $0.hasPrefix(name) }, "\(name) in \(lines)")
        }
        #expect(lines.contains { $0.contains("UTC (assumed!)") }, "\(lines)")
    }

    @Test func scriptsGetThePathTheIdAndEveryField() {
        let listing = StoresCommand.listing(Self.stores, objects: [], display: TimeDisplay(zone: .conference))
        let csv = ListingPrinter(format: .csv, width: nil, colors: false).render(listing)
        let lines = csv.components(separatedBy: "\r\n")
        #expect(
            lines[0]
                == "id,file,conference,timeZone,timeZoneSource,status,shadowedBy,type,configuration,readOnly,sessions,objects,warnings,warningMessages,loadedAt,error,settingsError"
        )
        #expect(
            lines[2]
                == "0D9E8F7A-6B5C-4D3E-2F1A-0B9C8D7E6F5A,/var/lib/almanac/inbox/38c3 (1).xml,38c3,+01:00,offsets,shadowed,/var/lib/almanac/inbox/38c3.xml,frab,,true,,1180,0,,,,"
        )
    }

    @Test func verboseListsTheWarningsUnderTheTable() {
        #expect(
            StoresCommand.warnings(Self.stores) == """

                38c3.xml (/var/lib/almanac/inbox/38c3.xml):
                  line 812: guid 6a1c repeated at 14:00: kept as a second run
                  line 950: duplicate of line 948 merged

                fosdem_2021.xml (/var/lib/almanac/inbox/fosdem_2021.xml):
                  settings: unknown time zone Europe/Brusels
                  no time zone in the file: UTC assumed

                broken.ics (/var/lib/almanac/inbox/broken.ics):
                  error: line 3: expected BEGIN:VCALENDAR

                """
        )
    }

    @Test func storesCommandPrintsTheTableAndTheWarnings() async throws {
        var schedule = CongressSchedule.schedule()
        schedule.stores = Self.stores
        try await FakeDaemon.serve(FakeScheduleHandler(schedule: schedule)) { socket in
            let result = try await FakeDaemon.almanac(
                ["stores", "--verbose", "--width", "200"], socket: socket)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // --verbose shows the store ids; without it the table has none.
            #expect(lines.first?.hasPrefix("ID   ") == true)
            #expect(lines.contains { $0.hasPrefix("0D9E8F7A-6B5C-4D3E-2F1A-0B9C8D7E6F5A  38c3 (1).xml ") })
            let plain = try await FakeDaemon.almanac(["stores", "--width", "200"], socket: socket)
            #expect(plain.stdout.hasPrefix("FILE "))
            #expect(!plain.stdout.contains("0D9E8F7A"))
            #expect(lines.contains("  error: line 3: expected BEGIN:VCALENDAR"))
            #expect(lines.contains("  line 950: duplicate of line 948 merged"))
            let json = try await FakeDaemon.almanac(["stores", "--format", "json"], socket: socket)
            let objects = try JSONValue(parsing: json.stdout).arrayValue ?? []
            #expect(objects.count == 5)
            #expect(objects.first?["warnings"]?["messages"]?.arrayValue?.count == 2)
        }
    }
}
