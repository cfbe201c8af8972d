import AlmanacWire
import Foundation

/// One conference day laid out as a grid: rooms as columns in the schedule file's order, rows of
/// ``rowMinutes`` minutes, each session a block that spans the rows of its duration. Where sessions of one room
/// overlap, the room is split into lanes side by side, so that no two blocks share a cell.
///
/// Grid lines count from 1 as in CSS: column 1 holds the times and row 1 the room names; rooms start at column 2
/// and times at row 2.
struct TimetableDay: Sendable {
    /// A room over one or more lanes.
    struct Room: Sendable, Hashable {
        var name: String
        /// The grid column of its first lane.
        var column: Int
        var lanes: Int
    }

    /// A session placed on the grid.
    struct Block: Sendable {
        var session: SessionSummary
        var column: Int
        var row: Int
        var rowSpan: Int
    }

    /// The conference's name, nil for sessions of no conference.
    var conference: String?
    /// The conference-local date, `YYYY-MM-DD`.
    var date: String
    /// The zone times are shown in.
    var zone: TimeZone
    /// The time at the top of row 2.
    var start: Date
    var rowCount: Int
    var rooms: [Room]
    var blocks: [Block]

    /// Minutes per grid row.
    static let rowMinutes = 5
    /// The fewest rows a block spans, so that a five-minute talk still shows its title's first line.
    static let minimumRowSpan = 2
    /// A day's grid covers at most 24 hours; a session past that is cut at the bottom.
    static let maximumRows = 24 * 60 / rowMinutes

    /// The number of grid columns for sessions (every room's lanes).
    var laneCount: Int { rooms.map(\.lanes).reduce(0, +) }

    /// The time at the top of grid row `row`.
    func time(ofRow row: Int) -> Date {
        start.addingTimeInterval(Double((row - 2) * Self.rowMinutes * 60))
    }

    /// The sessions with a start split into conference days, by the day's first start, then by conference.
    ///
    /// A session belongs to its `day.date` when the daemon gives one, else to the day that holds its start (06:00
    /// to 06:00 in its conference's zone, see ``ConferenceDays``).
    ///
    /// - Parameters:
    ///   - dayZone: The zone a session's day is counted in (its conference's).
    ///   - displayZone: The zone its times are shown in (its conference's, or `--utc`/`--tz`).
    static func days(
        _ sessions: [SessionSummary],
        dayZone: (SessionSummary) -> TimeZone,
        displayZone: (SessionSummary) -> TimeZone
    ) -> [TimetableDay] {
        struct Key: Hashable {
            var conference: String?
            var date: String
        }
        var groups: [Key: [SessionSummary]] = [:]
        var order: [Key] = []
        for session in sessions {
            guard let start = session.start else { continue }
            let date =
                session.raw.values["day.date"]?.stringValue.flatMap(ConferenceDays.normalized)
                ?? ConferenceDays.fallbackDate(now: start, in: dayZone(session))
            let key = Key(conference: session.conference, date: date)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(session)
        }
        let days = order.map { key in
            let members = groups[key]!
            return layout(members, conference: key.conference, date: key.date, zone: displayZone(members[0]))
        }
        return days.sorted { ($0.date, $0.start, $0.conference ?? "") < ($1.date, $1.start, $1.conference ?? "") }
    }

    /// Places one day's sessions (each with a start) on the grid.
    static func layout(_ sessions: [SessionSummary], conference: String?, date: String, zone: TimeZone)
        -> TimetableDay
    {
        let rowLength = TimeInterval(rowMinutes * 60)
        let halfHour: TimeInterval = 1800
        let firstStart = sessions.compactMap(\.start).min() ?? Date(timeIntervalSince1970: 0)
        // Rows start at a half hour of the shown zone (zones differ from UTC by whole quarter hours at least).
        let offset = TimeInterval(zone.secondsFromGMT(for: firstStart))
        let start = Date(
            timeIntervalSince1970: floor((firstStart.timeIntervalSince1970 + offset) / halfHour) * halfHour - offset)
        func rows(_ session: SessionSummary) -> (first: Int, last: Int) {
            let begin = session.start!.timeIntervalSince(start)
            let end = max(session.end ?? session.start!, session.start!).timeIntervalSince(start)
            let first = Int(floor(begin / rowLength))
            let last = max(first + minimumRowSpan, Int(ceil(end / rowLength)))
            return (first, min(last, maximumRows))
        }
        let latest = sessions.map { rows($0).last }.max() ?? 1
        // Whole half hours, so the last time label has its rows.
        let perHalfHour = 30 / rowMinutes
        let rowCount = min(maximumRows, max(perHalfHour, (latest + perHalfHour - 1) / perHalfHour * perHalfHour))

        var rooms: [Room] = []
        var blocks: [Block] = []
        var column = 2
        for name in GridRenderer.rooms(of: sessions) {
            let inRoom = sessions.filter { ($0.room ?? "?") == name }.sorted {
                ($0.start!, $0.end ?? $0.start!, $0.title) < ($1.start!, $1.end ?? $1.start!, $1.title)
            }
            // Each lane's first free row; a session takes the first lane free at its first row.
            var laneEnds: [Int] = []
            for session in inRoom {
                let span = rows(session)
                guard span.first < rowCount else { continue }
                let lane: Int
                if let free = laneEnds.firstIndex(where: { $0 <= span.first }) {
                    lane = free
                    laneEnds[free] = span.last
                } else {
                    lane = laneEnds.count
                    laneEnds.append(span.last)
                }
                blocks.append(
                    Block(session: session, column: column + lane, row: span.first + 2, rowSpan: span.last - span.first)
                )
            }
            let lanes = max(1, laneEnds.count)
            rooms.append(Room(name: name, column: column, lanes: lanes))
            column += lanes
        }
        return TimetableDay(
            conference: conference, date: date, zone: zone, start: start, rowCount: rowCount, rooms: rooms,
            blocks: blocks)
    }
}
