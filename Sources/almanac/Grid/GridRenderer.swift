import Foundation

/// Draws a day's sessions as a timetable for the terminal: rooms as columns, time as rows (one row per slot),
/// sessions as boxes with clipped titles, favourites marked ★, cancelled sessions ✗, and a line at the current
/// time. Pure: the same input gives the same text, so it is golden-tested.
struct GridRenderer {
    /// The terminal width in columns.
    var width: Int
    /// The zone the time rows are labelled in.
    var timeZone: TimeZone
    /// The current time, for the now line (nil: no line).
    var now: Date?
    /// GUIDs of favourite sessions.
    var favorites: Set<String> = []
    /// The conference day's window (e.g. 10:00 to 04:00 the next morning): the rows cover it as well as the
    /// sessions. A window of more than 20 hours (a day the schedule gives no times for, 06:00 to 06:00) is left
    /// out, so that the rows cover the sessions only rather than a mostly empty night.
    var window: DateInterval?
    /// Minutes per row.
    var slotMinutes = 15
    var colors = false

    private static let timeColumnWidth = 6
    private static let minimumColumnWidth = 10
    private static let maximumSpan: TimeInterval = 24 * 3600
    private static let maximumWindow: TimeInterval = 20 * 3600

    func render(_ sessions: [SessionSummary], title: String? = nil) -> String {
        let timed = sessions.filter { $0.start != nil }
        guard let first = timed.compactMap(\.start).min() else { return (title.map { $0 + "\n" } ?? "") + "No sessions.\n" }
        let slot = TimeInterval(slotMinutes * 60)
        var firstStart = first.timeIntervalSince1970
        var lastEnd = timed.map { ($0.end ?? $0.start!).timeIntervalSince1970 }.max()!
        if let window, window.duration <= Self.maximumWindow {
            firstStart = min(firstStart, window.start.timeIntervalSince1970)
            lastEnd = max(lastEnd, window.end.timeIntervalSince1970)
        }
        let rangeStart = floor(firstStart / slot) * slot
        let rangeEnd = min(ceil(lastEnd / slot) * slot, rangeStart + Self.maximumSpan)
        let rowCount = max(1, Int((rangeEnd - rangeStart) / slot))

        let allRooms = Set(timed.map { $0.room ?? "?" }).sorted {
            $0.compare($1, options: [.numeric, .caseInsensitive]) == .orderedAscending
        }
        let available = max(Self.minimumColumnWidth, width - Self.timeColumnWidth)
        let visibleCount = max(1, min(allRooms.count, available / Self.minimumColumnWidth))
        let rooms = Array(allRooms.prefix(visibleCount))
        let columnWidth = available / visibleCount
        let boxWidth = columnWidth - 1

        // cells[row][room]: exactly boxWidth columns each, plus its style.
        var cells = Array(
            repeating: Array(repeating: (text: String(repeating: " ", count: boxWidth), style: TextStyle.plain), count: rooms.count),
            count: rowCount
        )
        var occupied = Array(repeating: Array(repeating: false, count: rooms.count), count: rowCount)
        for session in timed.sorted(by: { $0.start! < $1.start! }) {
            guard let column = rooms.firstIndex(of: session.room ?? "?") else { continue }
            let start = session.start!.timeIntervalSince1970
            let end = (session.end ?? session.start!).timeIntervalSince1970
            let firstRow = Int((start - rangeStart) / slot)
            guard firstRow < rowCount else { continue }
            let lastRow = min(rowCount, max(firstRow + 1, Int(ceil((end - rangeStart) / slot))))
            let isFavorite = favorites.contains(session.guid)
            let marker = session.isCancelled ? "✗ " : (isFavorite ? "★ " : "")
            let style: TextStyle = session.isCancelled ? .red : (isFavorite ? .yellow : .plain)
            let box = Self.box(marker + session.title, width: boxWidth, height: lastRow - firstRow)
            for (offset, line) in box.enumerated() {
                cells[firstRow + offset][column] = (line, style)
                occupied[firstRow + offset][column] = true
            }
        }

        var lines: [String] = []
        if let title { lines.append(TextStyle.bold.apply(title, colors: colors)) }
        var header = String(repeating: " ", count: Self.timeColumnWidth)
        for room in rooms { header += TextWidth.pad(room, to: boxWidth) + " " }
        lines.append(TextStyle.bold.apply(trimmed(header), colors: colors))

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
        if allRooms.count > rooms.count {
            let note = "+\(allRooms.count - rooms.count) rooms not shown: widen the terminal"
            lines.append(TextStyle.dim.apply(TextWidth.clip(note, to: width), colors: colors))
        }
        let legend = "★ favourite  ✗ cancelled  rows of \(slotMinutes) min, \(TimeDisplay.abbreviation(of: timeZone, at: first))"
        lines.append(TextStyle.dim.apply(TextWidth.clip(legend, to: width), colors: colors))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The lines of one session box, each exactly `width` columns.
    static func box(_ text: String, width: Int, height: Int) -> [String] {
        let inner = width - 2
        guard height > 1 else {
            return ["[" + TextWidth.pad(text, to: inner) + "]"]
        }
        let textRows = height - 1
        var wrapped = wrap(text, width: inner)
        if wrapped.count > textRows {
            let rest = wrapped[(textRows - 1)...].joined(separator: " ")
            wrapped = Array(wrapped.prefix(textRows - 1)) + [TextWidth.clip(rest, to: inner)]
        }
        var lines: [String] = []
        let top = wrapped.first ?? ""
        lines.append("┌" + top + String(repeating: "─", count: max(0, inner - TextWidth.of(top))) + "┐")
        for index in 1..<textRows {
            let content = index < wrapped.count ? wrapped[index] : ""
            lines.append("│" + TextWidth.pad(content, to: inner) + "│")
        }
        lines.append("└" + String(repeating: "─", count: inner) + "┘")
        return lines
    }

    /// Greedy word wrap to `width` columns; words longer than a line are cut.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var current = ""
        for word in TextWidth.singleLine(text).split(separator: " ").map(String.init) {
            var word = word
            while TextWidth.of(word) > width {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                var head = ""
                var rest = Substring(word)
                while let character = rest.first, TextWidth.of(head + String(character)) <= width {
                    head.append(character)
                    rest = rest.dropFirst()
                }
                lines.append(head)
                word = String(rest)
            }
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
