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
        let url = try #require(Bundle.module.url(forResource: "grid-100", withExtension: "txt", subdirectory: "Fixtures"))
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

    @Test func narrowTerminalsDropRoomsAndSaySo() {
        let text = render(width: 26)
        #expect(text.contains("rooms not shown"))
    }

    @Test func boxesHaveTheRequestedHeight() {
        #expect(GridRenderer.box("Title", width: 10, height: 1) == ["[Title   ]"])
        #expect(GridRenderer.box("Title", width: 10, height: 2) == ["┌Title───┐", "└────────┘"])
        #expect(
            GridRenderer.box("A longer title here", width: 10, height: 4)
                == ["┌A longer┐", "│title   │", "│here    │", "└────────┘"]
        )
        #expect(GridRenderer.box("A longer title here", width: 10, height: 3) == ["┌A longer┐", "│title h…│", "└────────┘"])
    }

    @Test func noSessionsSaysSo() {
        let text = GridRenderer(width: 80, timeZone: SampleSessions.berlin, now: nil).render([])
        #expect(text == "No sessions.\n")
    }
}
