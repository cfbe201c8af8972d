import AlmanacWire
import Foundation
import Testing

@testable import almanac

/// The printable timetable (`almanac export html`): its layout on the grid, and the page as libxml2's parsers read
/// it.
@Suite struct TimetableHTMLTests {
    static let hasXMLLint = HTMLTools.xmllint != nil

    /// The sample day, plus a session whose texts try to break out of the markup, and a favourite that overlaps
    /// another favourite.
    static var sessions: [SessionSummary] {
        var objects = SampleSessions.objects
        var hostile = SampleSessions.object(
            9, guid: "g-hostile", title: "<script>alert('x')</script> & \"quotes\" \u{0B}",
            start: "2024-12-28T10:30:00+01:00", end: "2024-12-28T10:45:00+01:00", room: "Saal <G>\" onclick=\"x")
        hostile.values["persons.name"] = .array([.string("Ada <b>Lovelace</b>"), .string("Grace & Co")])
        hostile.values["track.color"] = .string("red; background: url(http://example.com/x.png)")
        objects.append(hostile)
        objects[0].values["track.color"] = .string("#1A2b3C")
        return objects.map(SessionSummary.init)
    }

    static func page(_ sessions: [SessionSummary] = sessions, favorites: Set<String> = SampleSessions.favorites)
        -> String
    {
        let days = TimetableDay.days(
            sessions, dayZone: { $0.timeZone ?? SampleSessions.berlin },
            displayZone: { $0.timeZone ?? SampleSessions.berlin })
        let favourites = sessions.filter { favorites.contains($0.guid) }
        return TimetablePage(
            title: "Timetable · 38c3", favorites: favorites, conflicts: ConflictsCommand.conflicts(favourites),
            generated: SampleSessions.now
        ).render(days)
    }

    /// A temporary folder holding `html` as `page.html`.
    static func write(_ html: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("page.html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    // MARK: Layout

    @Test func roomsAreColumnsInTheFilesOrderAndBlocksSpanTheirDuration() throws {
        var objects = SampleSessions.objects
        for (index, position) in [(0, 2), (1, 1), (2, 2), (3, 0), (4, 0)] {
            objects[index].values["room.position"] = .int(Int64(position))
        }
        let days = TimetableDay.days(
            objects.map(SessionSummary.init), dayZone: { _ in SampleSessions.berlin },
            displayZone: { _ in SampleSessions.berlin })
        let day = try #require(days.first)
        #expect(days.count == 1)
        #expect(day.date == "2024-12-28")
        #expect(day.rooms.map(\.name) == ["Saal G", "Saal 2", "Saal 1"])
        #expect(day.rooms.map(\.column) == [2, 3, 4])
        // Rows of 5 minutes from 10:00: the 60-minute talk spans 12 rows, the 15-minute one 3.
        let rust = try #require(day.blocks.first { $0.session.guid == "g-rust" })
        #expect((rust.column, rust.row, rust.rowSpan) == (3, 2, 12))
        let lightning = try #require(day.blocks.first { $0.session.guid == "g-lightning" })
        #expect((lightning.column, lightning.row, lightning.rowSpan) == (2, 14, 3))
        #expect(TimeDisplay.clock(day.time(ofRow: 2), in: SampleSessions.berlin) == "10:00")
        #expect(day.rowCount == 18)  // 10:00 to 11:30
    }

    @Test func overlappingSessionsInOneRoomGetLanesAndNoBlocksShareACell() throws {
        // In rows of five minutes (at least two), 10:00-10:07 takes rows 0-1 and 10:07-10:30 rows 1-5: a second
        // lane. 10:10-10:50 fits the first lane again, and 10:30-10:40 the second, after 10:07-10:30.
        let objects = [
            ("a", "10:00", "10:07"), ("b", "10:07", "10:30"), ("c", "10:10", "10:50"), ("d", "10:30", "10:40"),
        ].enumerated().map { index, item in
            SampleSessions.object(
                index, guid: item.0, title: item.0, start: "2024-12-28T\(item.1):00+01:00",
                end: "2024-12-28T\(item.2):00+01:00", room: "Saal 1")
        }
        let day = TimetableDay.layout(
            objects.map(SessionSummary.init), conference: "38c3", date: "2024-12-28", zone: SampleSessions.berlin)
        #expect(day.rooms == [TimetableDay.Room(name: "Saal 1", column: 2, lanes: 2)])
        var cells = Set<[Int]>()
        for block in day.blocks {
            for row in block.row..<(block.row + block.rowSpan) {
                #expect(cells.insert([block.column, row]).inserted, "\(block.session.guid) shares row \(row)")
            }
        }
        #expect(day.blocks.map { "\($0.session.guid)\($0.column)" } == ["a2", "b3", "c2", "d3"])
    }

    @Test func daysAreSplitByConferenceAndDayDate() {
        var objects = SampleSessions.objects
        objects[3].values["day.date"] = "2024-12-29"
        objects[4].values["conference.acronym"] = "other"
        let days = TimetableDay.days(
            objects.map(SessionSummary.init), dayZone: { _ in SampleSessions.berlin },
            displayZone: { _ in SampleSessions.berlin })
        #expect(
            days.map { "\($0.conference ?? "-") \($0.date) \($0.blocks.count)" } == [
                "38c3 2024-12-28 3", "other 2024-12-28 1", "38c3 2024-12-29 1",
            ])
    }

    // MARK: The page

    @Test func textIsEscapedAndColoursThatAreNotHexAreDropped() {
        let html = Self.page()
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;"))
        #expect(html.contains("Ada &lt;b&gt;Lovelace&lt;/b&gt;, Grace &amp; Co"))
        #expect(html.contains("Saal &lt;G&gt;&quot; onclick=&quot;x"))
        #expect(!html.contains("\u{0B}"))
        #expect(html.contains("border-left-color: #1a2b3c"))
        #expect(!html.contains("example.com"))
        #expect(HTMLText.cssColor("#12345g") == nil && HTMLText.cssColor("#abc") == "#abc")
    }

    @Test func favouritesAreHighlightedAndOverlappingFavouritesMarked() {
        // Opening (10:00-10:30, Saal 1) and the rust talk (10:00-11:00, Saal 2) are favourites and overlap.
        let html = Self.page()
        let blocks = html.split(separator: "\n").filter { $0.hasPrefix("<div class=\"session") }
        #expect(blocks.count == 6)
        let opening = blocks.first { $0.contains("Opening Ceremony</div>") } ?? ""
        #expect(opening.hasPrefix("<div class=\"session fav conflict\""), "\(opening)")
        #expect(opening.contains("★ Opening Ceremony"))
        #expect(
            opening.contains("⚠ overlaps Memory safety in practice: a long title that will not fit in a box (30 min)"))
        let cancelled = blocks.first { $0.contains("Cancelled talk") } ?? ""
        #expect(cancelled.hasPrefix("<div class=\"session cancelled\""))
        let lightning = blocks.first { $0.contains(">Lightning</div>") } ?? ""
        #expect(lightning.hasPrefix("<div class=\"session\""))
        // Without favourites nothing is highlighted or marked.
        let plain = Self.page(favorites: [])
        #expect(!plain.contains("session fav") && !plain.contains("class=\"overlap\""))
    }

    @Test func timesAreInTheConferencesZoneWithItsOffset() {
        let html = Self.page()
        #expect(html.contains("times in Europe/Berlin, UTC+01:00 (CET)"))
        #expect(html.contains("<div class=\"when\">10:00–10:30</div>"))
        #expect(html.contains("@page { size: A4 landscape"))
        #expect(TimetablePage.zoneText(TimeZone(secondsFromGMT: 3600)!, at: SampleSessions.now) == "UTC+01:00")
    }

    @Test func anEmptySelectionIsStillAPage() async throws {
        let html = Self.page([])
        #expect(html.contains("<p class=\"empty\">No sessions.</p>"))
        guard Self.hasXMLLint else { return }
        let file = try Self.write(html)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(try await HTMLTools.parserComplaints(file) == "")
    }

    @Test(.enabled(if: hasXMLLint, "xmllint is not installed (apt-get install libxml2-utils): the HTML is not parsed"))
    func libxml2ReadsEveryElementClosedAndFindsNoExternalReference() async throws {
        let file = try Self.write(Self.page())
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(try await HTMLTools.parserComplaints(file) == "")
        let references = try await HTMLTools.references(file)
        #expect(references.allSatisfy { $0.hasPrefix("#") }, "\(references)")
        let scripts = try await HTMLTools.text(file, xpath: "count(//script | //link | //img | //iframe | //object)")
        #expect(scripts.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let style = try await HTMLTools.text(file, xpath: "string(//style)")
        #expect(!style.isEmpty && !style.contains("url(") && !style.contains("@import"))
        // The hostile title reads back as the text it was, through the parser.
        let title = try await HTMLTools.text(file, xpath: "string(//div[@class='what'][contains(., 'alert')])")
        #expect(title.trimmingCharacters(in: .whitespacesAndNewlines) == "<script>alert('x')</script> & \"quotes\"")
    }

    @Test(.enabled(if: hasXMLLint, "xmllint is not installed (apt-get install libxml2-utils): the HTML is not parsed"))
    func theCheckCatchesAnUnclosedElementAndAnExternalReference() async throws {
        // The parser check must be able to fail: a page with an unclosed div and an image from the network.
        let broken = Self.page().replacingOccurrences(
            of: "<div class=\"when\">10:00–10:30</div>",
            with: "<div class=\"when\"><img src=\"https://example.com/x.png\"/>10:00–10:30")
        let file = try Self.write(broken)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(try await HTMLTools.parserComplaints(file) != "")
        #expect(try await HTMLTools.references(file).contains("https://example.com/x.png"))
    }
}
