import AlmanacWire
import Foundation
import Testing

@testable import almanac

@Suite struct OutputTests {
    let listing = Listing(
        columns: [
            .init(header: "NAME", key: "name"), .init(header: "COUNT", key: "count", alignment: .right),
            .init(header: "NOTE", key: "note", isFlexible: true),
            .init(header: "hidden", key: "secret", visibility: .dataOnly),
        ],
        rows: [
            [.init("Saal 1"), .init("12"), .init("plain"), .init("s1")],
            [.init("Saal Grün"), .init("3"), .init("has, comma \"quoted\"\nand newline\ttab"), .init("s2")],
        ],
        objects: [["name": "Saal 1"], ["name": "Saal Grün", "note": "x\ny"]]
    )

    @Test func tablesAlignColumnsUnderAHeader() {
        let text = ListingPrinter(format: .table, width: nil, colors: false).render(listing)
        #expect(
            text == """
                NAME       COUNT  NOTE
                Saal 1        12  plain
                Saal Grün      3  has, comma "quoted" and newline tab

                """
        )
    }

    @Test func tablesShrinkFlexibleColumnsToFitTheWidth() {
        let text = ListingPrinter(format: .table, width: 30, colors: false).render(listing)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { TextWidth.of(String($0)) <= 30 })
        #expect(lines[2].hasSuffix("…"))
    }

    @Test func tablesUseColourOnlyWhenAsked() {
        let styled = Listing(columns: [.init(header: "A", key: "a")], rows: [[.init("x", style: .red)]], objects: [])
        #expect(!ListingPrinter(format: .table, width: nil, colors: false).render(styled).contains("\u{1B}"))
        #expect(ListingPrinter(format: .table, width: nil, colors: true).render(styled).contains("\u{1B}[31m"))
    }

    @Test func csvQuotesAndUsesCRLF() {
        let text = ListingPrinter(format: .csv, width: nil, colors: false).render(listing)
        #expect(
            text
                == "name,count,note,secret\r\nSaal 1,12,plain,s1\r\nSaal Grün,3,\"has, comma \"\"quoted\"\"\nand newline\ttab\",s2\r\n"
        )
    }

    @Test func tsvEscapesTabsAndNewlines() {
        let text = ListingPrinter(format: .tsv, width: nil, colors: false).render(listing)
        #expect(
            text
                == "name\tcount\tnote\tsecret\nSaal 1\t12\tplain\ts1\nSaal Grün\t3\thas, comma \"quoted\"\\nand newline\\ttab\ts2\n"
        )
    }

    @Test func ndjsonIsOneObjectPerLine() {
        let text = ListingPrinter(format: .ndjson, width: nil, colors: false).render(listing)
        #expect(text == "{\"name\":\"Saal 1\"}\n{\"name\":\"Saal Grün\",\"note\":\"x\\ny\"}\n")
    }

    @Test func jsonIsTheObjectsUnchanged() throws {
        let text = ListingPrinter(format: .json, width: nil, colors: false).render(listing)
        #expect(try JSONValue(parsing: text.dropLast().utf8) == .array(listing.objects))
    }

    @Test func aggregateTablesRoundFractionsAndScriptsKeepThem() throws {
        let rows: [JSONObject] = [
            ["room.name": .string("Saal 1"), "avg(duration)": .double(63.333_333_333_333_336), "count": .int(3)],
            ["room.name": .string("Saal 2"), "avg(duration)": .double(40.0), "count": .int(1)],
            ["room.name": .string("Saal 3"), "avg(duration)": .double(-0.001), "count": .int(1)],
        ]
        let listing = QueryCommand.rowListing(
            rows, keys: ["room.name", "count", "avg(duration)"],
            display: TimeDisplay(zone: .conference))
        let table = ListingPrinter(format: .table, width: nil, colors: false).render(listing)
        #expect(
            table.split(separator: "\n").map(String.init) == [
                "room.name  count  avg(duration)",
                "Saal 1         3          63.33",
                "Saal 2         1             40",
                "Saal 3         1              0",
            ])
        let csv = ListingPrinter(format: .csv, width: nil, colors: false).render(listing)
        #expect(csv.contains("Saal 1,3,63.333333333333336\r\n"))
    }

    @Test func sessionTablesShowTimesInTheConferenceZone() {
        let listing = SessionListing.make(
            Array(SampleSessions.sessions.prefix(3)),
            favorites: SampleSessions.favorites,
            display: TimeDisplay(zone: .conference)
        )
        let text = ListingPrinter(format: .table, width: nil, colors: false).render(listing)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("   WHEN"))
        #expect(
            lines[1]
                == "★  Sat 28 Dec 10:00–10:30 CET  Saal 1  Opening Ceremony                                                    Ceremonies"
        )
        #expect(lines[3].hasPrefix("✗  Sat 28 Dec 10:30–11:30 CET  Saal 1  Cancelled talk"))
    }

    @Test func sessionTimesFollowUTCAndTzOptions() throws {
        let session = SampleSessions.sessions[0]
        #expect(TimeDisplay(zone: .fixed(TimeZone(identifier: "UTC")!)).span(session) == "Sat 28 Dec 09:00–09:30 UTC")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(TimeDisplay(zone: .fixed(tokyo)).span(session) == "Sat 28 Dec 18:00–18:30 JST")
    }

    @Test func sessionCSVCarriesRawISODates() {
        let listing = SessionListing.make(
            [SampleSessions.sessions[0]], favorites: [], display: TimeDisplay(zone: .conference))
        let text = ListingPrinter(format: .csv, width: nil, colors: false).render(listing)
        #expect(
            text
                == "start,end,room,title,track,favorite,status,guid,uri\r\n2024-12-28T09:00:00Z,2024-12-28T09:30:00Z,Saal 1,Opening Ceremony,Ceremonies,false,confirmed,g-opening,x-almanac://38c3/Session/p1\r\n"
        )
    }

    @Test func textWidthCountsWideCharacters() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("日本") == 4)
        #expect(TextWidth.of("😀") == 2)
        #expect(TextWidth.of("e\u{301}") == 1)
        #expect(TextWidth.clip("Grüße aus Köln", to: 6) == "Grüße…")
        #expect(TextWidth.pad("日本語", to: 5) == "日本…")
    }

    @Test func conflictsReportOverlapInMinutes() {
        let sessions = SampleSessions.sessions
        let conflicts = ConflictsCommand.conflicts(sessions)
        let pairs = conflicts.map { "\($0.first.guid)/\($0.second.guid)/\($0.minutes)" }
        #expect(pairs == ["g-opening/g-rust/30", "g-opening/g-grüße/15", "g-rust/g-grüße/45"])
    }
}
