import Foundation

/// Draws a day's sessions as a timetable for the terminal: rooms as columns in the schedule file's order, time as
/// rows (one row per slot), sessions as boxes with titles wrapped by words, favourites marked ★, cancelled
/// sessions ✗, and a line at the current time. When the rooms do not fit, they are split into pages of rooms
/// (``page``), and a footer names the rooms on the other pages. Pure: the same input gives the same text, so it is
/// golden-tested.
struct GridRenderer {
    /// The width in columns.
    var width: Int
    /// The zone the time rows are labelled in.
    var timeZone: TimeZone
    /// The current time, for the now line (nil: no line).
    var now: Date?
    /// GUIDs of favourite sessions.
    var favorites: Set<String> = []
    /// The conference day's window (e.g. 10:00 to 04:00 the next morning): the rows start at its start and run to
    /// the last session's end, or to now when now is later in the window. A window of more than 20 hours (a day the schedule gives no times for, 06:00 to 06:00) is left
    /// out, so that the rows cover the sessions only rather than a mostly empty night.
    var window: DateInterval?
    /// Minutes per row.
    var slotMinutes = 15
    var colors = false
    /// The page of rooms to draw, from 1 (see ``pages(of:)``).
    var page = 1

    static let timeColumnWidth = 6
    /// The narrowest room column: a box of 17 columns inside its borders holds two or three words a line.
    static let minimumColumnWidth = 20
    private static let maximumSpan: TimeInterval = 24 * 3600
    private static let maximumWindow: TimeInterval = 20 * 3600

    /// The rooms of `sessions` in the schedule file's order (`room.position`), rooms without a position after
    /// the others by name.
    static func rooms(of sessions: [SessionSummary]) -> [String] {
        var position: [String: Int] = [:]
        for session in sessions {
            let room = session.room ?? "?"
            let value = session.roomPosition ?? Int.max
            position[room] = min(position[room] ?? Int.max, value)
        }
        return position.keys.sorted { left, right in
            let (a, b) = (position[left]!, position[right]!)
            if a != b { return a < b }
            return left.compare(right, options: [.numeric, .caseInsensitive]) == .orderedAscending
        }
    }

    /// How many rooms fit side by side at ``width``.
    var roomsPerPage: Int {
        max(1, (width - Self.timeColumnWidth) / Self.minimumColumnWidth)
    }

    /// The rooms split into pages that fit ``width``.
    func pages(of rooms: [String]) -> [[String]] {
        stride(from: 0, to: rooms.count, by: roomsPerPage).map {
            Array(rooms[$0..<min(rooms.count, $0 + roomsPerPage)])
        }
    }

    func render(_ sessions: [SessionSummary], title: String? = nil) -> String {
        let timed = sessions.filter { $0.start != nil }
        guard let first = timed.compactMap(\.start).min() else {
            return (title.map { $0 + "\n" } ?? "") + "No sessions.\n"
        }
        let slot = TimeInterval(slotMinutes * 60)
        var firstStart = first.timeIntervalSince1970
        var lastEnd = timed.map { ($0.end ?? $0.start!).timeIntervalSince1970 }.max()!
        if let window, window.duration <= Self.maximumWindow {
            // From the day's start (so that an early morning reads as empty), to the last session's end, or to
            // now when now is later in the day (a late-night view of the day still shows where now is).
            firstStart = min(firstStart, window.start.timeIntervalSince1970)
            if let now, window.contains(now) { lastEnd = max(lastEnd, now.timeIntervalSince1970 + 1) }
        }
        let rangeStart = floor(firstStart / slot) * slot
        let rangeEnd = min(ceil(lastEnd / slot) * slot, rangeStart + Self.maximumSpan)
        let rowCount = max(1, Int((rangeEnd - rangeStart) / slot))

        let allPages = pages(of: Self.rooms(of: timed))
        let pageIndex = min(max(page, 1), allPages.count) - 1
        let rooms = allPages[pageIndex]
        let columnWidth = max(Self.minimumColumnWidth, (width - Self.timeColumnWidth) / rooms.count)
        let boxWidth = columnWidth - 1

        // cells[row][room]: exactly boxWidth columns each, plus its style.
        let blank = (text: String(repeating: " ", count: boxWidth), style: TextStyle.plain)
        var cells = Array(repeating: Array(repeating: blank, count: rooms.count), count: rowCount)
        var occupied = Array(repeating: Array(repeating: false, count: rooms.count), count: rowCount)
        for (column, room) in rooms.enumerated() {
            // Boxes in one room follow each other: a session starting in the row where the previous one ends
            // moves down a row, so that every box keeps its borders.
            var nextFreeRow = 0
            let inRoom = timed.filter { ($0.room ?? "?") == room }.sorted { $0.start! < $1.start! }
            for session in inRoom {
                let start = session.start!.timeIntervalSince1970
                let end = (session.end ?? session.start!).timeIntervalSince1970
                let firstRow = max(nextFreeRow, Int((start - rangeStart) / slot))
                guard firstRow < rowCount else { continue }
                let lastRow = min(rowCount, max(firstRow + 1, Int(ceil((end - rangeStart) / slot))))
                nextFreeRow = lastRow
                let box = Self.box(marker(session) + session.title, width: boxWidth, height: lastRow - firstRow)
                let style = self.style(session)
                for (offset, line) in box.enumerated() {
                    cells[firstRow + offset][column] = (line, style)
                    occupied[firstRow + offset][column] = true
                }
            }
        }

        var lines: [String] = []
        if let title { lines.append(TextStyle.bold.apply(title, colors: colors)) }
        lines += header(rooms, boxWidth: boxWidth)

        let nowRow = now.flatMap { now -> Int? in
            let offset = now.timeIntervalSince1970 - rangeStart
            guard offset >= 0, offset < Double(rowCount) * slot else { return nil }
            return Int(offset / slot)
        }
        for row in 0..<rowCount {
            let rowStart = Date(timeIntervalSince1970: rangeStart + Double(row) * slot)
            var line: String
            if row == nowRow, let now {
                line = TextStyle.red.apply(TimeDisplay.clock(now, in: timeZone) + "▶", colors: colors)
            } else {
                let minute = TimeDisplay.calendar(in: timeZone).component(.minute, from: rowStart)
                line = minute % 30 == 0 ? TimeDisplay.clock(rowStart, in: timeZone) + " " : "      "
            }
            for column in rooms.indices {
                var cell = cells[row][column]
                if row == nowRow, !occupied[row][column] {
                    cell = (String(repeating: "┈", count: boxWidth), .red)
                }
                line += cell.style.apply(cell.text, colors: colors) + " "
            }
            lines.append(trimmed(line))
        }
        lines += footer(allPages, current: pageIndex)
        let legend =
            "★ favourite  ✗ cancelled  rows of \(slotMinutes) min, \(TimeDisplay.abbreviation(of: timeZone, at: first))"
        lines.append(TextStyle.dim.apply(TextWidth.clip(legend, to: width), colors: colors))
        return lines.joined(separator: "\n") + "\n"
    }

    private func marker(_ session: SessionSummary) -> String {
        session.isCancelled ? "✗ " : (favorites.contains(session.guid) ? "★ " : "")
    }

    /// Cancelled red, favourites yellow, else the track's colour from the file.
    private func style(_ session: SessionSummary) -> TextStyle {
        if session.isCancelled { return .red }
        if favorites.contains(session.guid) { return .yellow }
        return session.trackColor.flatMap(TextStyle.init(hexColor:)) ?? .plain
    }

    /// The room names over their columns, wrapped by words on up to two lines.
    private func header(_ rooms: [String], boxWidth: Int) -> [String] {
        let wrapped = rooms.map { room -> [String] in
            var lines = Self.wrap(room, width: boxWidth)
            if lines.count > 2 { lines = [lines[0], TextWidth.clip(lines[1...].joined(separator: " "), to: boxWidth)] }
            return lines
        }
        let height = wrapped.map(\.count).max() ?? 1
        return (0..<height).map { index in
            var line = String(repeating: " ", count: Self.timeColumnWidth)
            for name in wrapped { line += TextWidth.pad(index < name.count ? name[index] : "", to: boxWidth) + " " }
            return TextStyle.bold.apply(trimmed(line), colors: colors)
        }
    }

    /// For more than one page: which rooms this page shows, and the rooms of each other page.
    private func footer(_ pages: [[String]], current: Int) -> [String] {
        guard pages.count > 1 else { return [] }
        let shown = pages[..<current].map(\.count).reduce(0, +)
        let total = pages.map(\.count).reduce(0, +)
        var text = [
            "Rooms \(shown + 1)–\(shown + pages[current].count) of \(total) (page \(current + 1) of \(pages.count)); "
                + "--room NAME picks rooms. Other pages:"
        ]
        for (index, rooms) in pages.enumerated() where index != current {
            let lead = "  --page \(index + 1): "
            let body = Self.wrap(rooms.joined(separator: ", "), width: max(10, width - TextWidth.of(lead)))
            for (number, line) in body.enumerated() {
                text.append((number == 0 ? lead : String(repeating: " ", count: TextWidth.of(lead))) + line)
            }
        }
        return text.map { TextStyle.dim.apply(TextWidth.clip($0, to: width), colors: colors) }
    }

    /// The lines of one session box, each exactly `width` columns. The text runs in every line, the first and
    /// last in the borders, so that a two-row box holds two lines of title.
    static func box(_ text: String, width: Int, height: Int) -> [String] {
        let inner = width - 2
        guard height > 1 else {
            return ["[" + TextWidth.pad(text, to: inner) + "]"]
        }
        var wrapped = wrap(text, width: inner)
        if wrapped.count > height {
            let rest = wrapped[(height - 1)...].joined(separator: " ")
            wrapped = Array(wrapped.prefix(height - 1)) + [TextWidth.clip(rest, to: inner, wholeWords: true)]
        }
        func filled(_ content: String, with fill: String) -> String {
            content + String(repeating: fill, count: max(0, inner - TextWidth.of(content)))
        }
        var lines: [String] = []
        for index in 0..<height {
            let content = index < wrapped.count ? wrapped[index] : ""
            switch index {
            case 0: lines.append("┌" + filled(content, with: "─") + "┐")
            case height - 1: lines.append("└" + filled(content, with: "─") + "┘")
            default: lines.append("│" + filled(content, with: " ") + "│")
            }
        }
        return lines
    }

    /// Greedy word wrap to `width` columns; a word longer than a line is cut with `…`, never split.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var current = ""
        for word in TextWidth.singleLine(text).split(separator: " ").map(String.init) {
            let word = TextWidth.of(word) > width ? TextWidth.clip(word, to: width) : word
            if current.isEmpty {
                current = word
            } else if TextWidth.of(current) + 1 + TextWidth.of(word) <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    private func trimmed(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
