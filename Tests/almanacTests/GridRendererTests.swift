import Foundation
import Testing

@testable import almanac

@Suite struct GridRendererTests {
    func render(width: Int) -> String {
        GridRenderer(
            width: width,
            timeZone: SampleSessions.berlin,
            now: SampleSessions.now,
            favorites: SampleSessions.favorites
        ).render(SampleSessions.sessions, title: "Sat 28 Dec 2024 · 38c3")
    }

    @Test func matchesTheGoldenFileAt100Columns() throws {
        let url = try #require(
            Bundle.module.url(forResource: "grid-100", withExtension: "txt", subdirectory: "Fixtures"))
        let expected = try String(contentsOf: url, encoding: .utf8)
        let actual = render(width: 100)
        if actual != expected {
            try? actual.write(toFile: "/tmp/grid-100.actual.txt", atomically: true, encoding: .utf8)
        }
        #expect(actual == expected)
    }

    @Test(arguments: [40, 60, 80, 100, 132])
    func linesNeverExceedTheWidth(width: Int) {
        for line in render(width: width).split(separator: "\n") {
            #expect(TextWidth.of(String(line)) <= width, "\(line)")
        }
    }

    @Test func narrowTerminalsPageTheRoomsAndNameTheOthers() {
        let text = render(width: 46)
        // 40 columns hold two rooms: Saal 1 and Saal 2 here, Saal G on page 2.
        #expect(text.contains("Rooms 1–2 of 3 (page 1 of 2)"), "\(text)")
        #expect(text.contains("  --page 2: Saal G"))
        var second = GridRenderer(width: 46, timeZone: SampleSessions.berlin, now: nil)
        second.page = 2
        let page = second.render(SampleSessions.sessions)
        #expect(page.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces) == "Saal G")
        #expect(page.contains("  --page 1: Saal 1, Saal 2"))
    }

    @Test func roomsFollowTheFilesOrderNotTheAlphabet() {
        var objects = SampleSessions.objects
        for (index, position) in [(0, 2), (1, 1), (2, 2), (3, 0), (4, 0)] {
            objects[index].values["room.position"] = .int(Int64(position))
        }
        #expect(GridRenderer.rooms(of: objects.map(SessionSummary.init)) == ["Saal G", "Saal 2", "Saal 1"])
        // Without positions: by name, numbers compared as numbers.
        let unordered = ["Saal 10", "Saal 2", "Hall"].enumerated().map { index, room in
            SessionSummary(
                SampleSessions.object(
                    index, guid: "r\(index)", title: "T", start: "2024-12-28T10:00:00+01:00",
                    end: "2024-12-28T11:00:00+01:00", room: room))
        }
        #expect(GridRenderer.rooms(of: unordered) == ["Hall", "Saal 2", "Saal 10"])
    }

    @Test func backToBackSessionsKeepTheirBorders() {
        // Two 20-minute talks in one room at 15-minute rows: the second starts in the row the first ends in.
        let talks = [("a", "First talk", "10:00", "10:20"), ("b", "Second talk", "10:20", "10:40")].map {
            SessionSummary(
                SampleSessions.object(
                    1, guid: $0.0, title: $0.1, start: "2024-12-28T\($0.2):00+01:00",
                    end: "2024-12-28T\($0.3):00+01:00", room: "Saal 1"))
        }
        let lines = GridRenderer(width: 40, timeZone: SampleSessions.berlin, now: nil).render(talks)
            .split(separator: "\n").map(String.init)
        // The first box keeps its bottom border; the second moves down a row (a one-row box).
        #expect(lines.contains("10:00 ┌First talk─────────────────────┐"), "\(lines)")
        #expect(lines.contains("      └───────────────────────────────┘"))
        #expect(lines.contains("10:30 [Second talk                    ]"))
    }

    @Test func headersWrapOnTwoLinesAndTitlesNeverBreakInsideAWord() {
        let session = SessionSummary(
            SampleSessions.object(
                1, guid: "w", title: "Reproducible builds everywhere", start: "2024-12-28T10:00:00+01:00",
                end: "2024-12-28T10:30:00+01:00", room: "Workshop Room of the Assembly Hall"))
        let lines = GridRenderer(width: 26, timeZone: SampleSessions.berlin, now: nil).render([session])
            .split(separator: "\n").map(String.init)
        #expect(lines[0] == "      Workshop Room of", "\(lines)")
        #expect(lines[1] == "      the Assembly Hall")
        #expect(lines.contains("10:00 ┌Reproducible─────┐"))
        #expect(lines.contains("      └builds everywhere┘"))
        let long = GridRenderer.box("Reproducible builds everywhere at once", width: 19, height: 2)
        #expect(long == ["┌Reproducible─────┐", "└builds…──────────┘"])
    }

    @Test func trackColoursOnlyWithColours() {
        var object = SampleSessions.objects[0]
        object.values["track.color"] = "#ff8000"
        let renderer = GridRenderer(width: 40, timeZone: SampleSessions.berlin, now: nil)
        var coloured = renderer
        coloured.colors = true
        let text = coloured.render([SessionSummary(object)])
        #expect(text.contains("\u{1B}[38;2;255;128;0m┌Opening Ceremony"), "\(text)")
        #expect(!renderer.render([SessionSummary(object)]).contains("\u{1B}["))
    }

    @Test func boxesHaveTheRequestedHeight() {
        #expect(GridRenderer.box("Title", width: 10, height: 1) == ["[Title   ]"])
        #expect(GridRenderer.box("Title", width: 10, height: 2) == ["┌Title───┐", "└────────┘"])
        #expect(
            GridRenderer.box("A longer title here", width: 10, height: 4)
                == ["┌A longer┐", "│title   │", "│here    │", "└────────┘"]
        )
        // Every line holds text, the borders included, so a two-row box holds two lines.
        #expect(
            GridRenderer.box("A longer title here", width: 10, height: 3) == ["┌A longer┐", "│title   │", "└here────┘"])
        #expect(GridRenderer.box("A longer title here", width: 10, height: 2) == ["┌A longer┐", "└title…──┘"])
        #expect(GridRenderer.box("Supercalifragilistic", width: 10, height: 2) == ["┌Superca…┐", "└────────┘"])
    }

    @Test func noSessionsSaysSo() {
        let text = GridRenderer(width: 80, timeZone: SampleSessions.berlin, now: nil).render([])
        #expect(text == "No sessions.\n")
    }
}
