import AlmanacWire
import Foundation

/// Writes conference days as one self-contained HTML page: no scripts, no fonts, images or style sheets from
/// elsewhere, only links to its own day sections. Each day is a section with a grid: rooms as columns in the
/// file's order, time running down in rows of five minutes, each session a block as tall as it is long, with its
/// time, title, speakers, room and track. Favourites are highlighted (★), favourites that overlap another
/// favourite are marked (⚠, with what they overlap), cancelled sessions are struck through. Times are in each
/// conference's zone, named with its offset. Printed, every day starts an A4 landscape page and the rooms share
/// the page's width.
///
/// The markup is also well-formed XML (every element closed, void elements self-closed) and uses only elements
/// HTML 4 knows, so that libxml2's HTML parser reads it without a complaint. Pure: the same input gives the same
/// text.
struct TimetablePage {
    /// The page's title (also its heading).
    var title: String
    /// GUIDs of favourite sessions.
    var favorites: Set<String> = []
    /// Overlapping favourites, as `ConflictsCommand.conflicts(_:)` finds them.
    var conflicts: [ConflictsCommand.Conflict] = []
    /// When the page was made, shown under the heading (nil: not shown).
    var generated: Date?

    func render(_ days: [TimetableDay]) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta name="generator" content="almanac"/>
            <title>\(HTMLText.escape(title))</title>
            <style>
            \(Self.css)</style>
            </head>
            <body>
            <h1>\(HTMLText.escape(title))</h1>

            """
        if let generated {
            let stamp = WireDate.string(from: generated, fractionalSeconds: false)
            html += "<p class=\"note\">Made by almanac at \(HTMLText.escape(stamp)).</p>\n"
        }
        html += "<p class=\"legend\"><span class=\"key fav\">★ favourite</span> "
        html += "<span class=\"key conflict\">⚠ overlaps another favourite</span> "
        html += "<span class=\"key cancelled\">cancelled</span></p>\n"
        if days.isEmpty {
            html += "<p class=\"empty\">No sessions.</p>\n"
        } else {
            if days.count > 1 {
                html += "<div class=\"toc\">"
                for day in days {
                    html += "<a href=\"#\(anchor(day))\">\(HTMLText.escape(heading(day)))</a> "
                }
                html += "</div>\n"
            }
            for (index, day) in days.enumerated() { html += section(day, isFirst: index == 0) }
        }
        html += "</body>\n</html>\n"
        return html
    }

    // MARK: Sections

    private func anchor(_ day: TimetableDay) -> String {
        HTMLText.anchor([day.conference ?? "personal", day.date])
    }

    /// `Sat 27 Dec 2014 · 31c3`.
    private func heading(_ day: TimetableDay) -> String {
        GridCommand.title(date: day.date) + " · " + (day.conference ?? "personal")
    }

    /// `Europe/Berlin, UTC+01:00 (CET)`: the zone, its offset on the day, and its abbreviation when it has one.
    static func zoneText(_ zone: TimeZone, at date: Date) -> String {
        let offset = "UTC" + ConferenceZone.offsetText(zone.secondsFromGMT(for: date))
        let abbreviation = TimeDisplay.abbreviation(of: zone, at: date)
        var text = zone.identifier.hasPrefix("GMT") ? offset : zone.identifier + ", " + offset
        if !abbreviation.hasPrefix("+"), !abbreviation.hasPrefix("-"), abbreviation != "UTC" {
            text += " (" + abbreviation + ")"
        }
        return text
    }

    private func section(_ day: TimetableDay, isFirst: Bool) -> String {
        var html = "<div class=\"day\(isFirst ? " first" : "")\" id=\"\(anchor(day))\">\n"
        html += "<h2>\(HTMLText.escape(heading(day)))"
        html += " <span class=\"zone\">times in \(HTMLText.escape(Self.zoneText(day.zone, at: day.start)))</span>"
        html += "</h2>\n<div class=\"scroll\">\n"
        html += "<div class=\"grid\" style=\"--lanes: \(day.laneCount); --rows: \(day.rowCount)\">\n"
        html += "<div class=\"corner\" style=\"grid-column: 1; grid-row: 1\"></div>\n"
        for room in day.rooms {
            html += "<div class=\"room\" style=\"grid-column: \(room.column) / span \(room.lanes); grid-row: 1\">"
            html += HTMLText.escape(room.name) + "</div>\n"
        }
        let perHalfHour = 30 / TimetableDay.rowMinutes
        for row in stride(from: 2, to: day.rowCount + 2, by: perHalfHour) {
            let label = TimeDisplay.clock(day.time(ofRow: row), in: day.zone)
            html += "<div class=\"time\" style=\"grid-column: 1; grid-row: \(row) / span \(perHalfHour)\">"
            html += label + "</div>\n"
            html += "<div class=\"line\" style=\"grid-column: 2 / -1; grid-row: \(row) / span \(perHalfHour)\"></div>\n"
        }
        let overlaps = overlapsByURI()
        for block in day.blocks { html += self.block(block, zone: day.zone, overlaps: overlaps[block.session.uri]) }
        html += "</div>\n</div>\n</div>\n"
        return html
    }

    // MARK: Blocks

    /// For each favourite that overlaps another: what it overlaps, one line each.
    private func overlapsByURI() -> [String: [String]] {
        var result: [String: [String]] = [:]
        for conflict in conflicts {
            result[conflict.first.uri, default: []].append("\(conflict.second.title) (\(conflict.minutes) min)")
            result[conflict.second.uri, default: []].append("\(conflict.first.title) (\(conflict.minutes) min)")
        }
        return result
    }

    private func block(_ block: TimetableDay.Block, zone: TimeZone, overlaps: [String]?) -> String {
        let session = block.session
        let isFavorite = favorites.contains(session.guid)
        var classes = ["session"]
        if isFavorite { classes.append("fav") }
        if overlaps != nil { classes.append("conflict") }
        if session.isCancelled { classes.append("cancelled") }
        var style = "grid-column: \(block.column); grid-row: \(block.row) / span \(block.rowSpan)"
        if let color = HTMLText.cssColor(session.trackColor) { style += "; border-left-color: \(color)" }

        var time = session.start.map { TimeDisplay.clock($0, in: zone) } ?? ""
        if let end = session.end { time += "–" + TimeDisplay.clock(end, in: zone) }
        var tooltip = time + " " + session.title
        if !session.persons.isEmpty { tooltip += " — " + session.persons.joined(separator: ", ") }

        var html = "<div class=\"\(classes.joined(separator: " "))\" style=\"\(style)\""
        html += " title=\"\(HTMLText.escape(tooltip))\">"
        html += "<div class=\"when\">\(HTMLText.escape(time))</div>"
        var title = HTMLText.escape(session.title)
        if isFavorite { title = "★ " + title }
        if session.isCancelled { title += " <span class=\"flag\">(cancelled)</span>" }
        html += "<div class=\"what\">\(title)</div>"
        if !session.persons.isEmpty {
            html += "<div class=\"who\">\(HTMLText.escape(session.persons.joined(separator: ", ")))</div>"
        }
        let place = [session.room, session.track].compactMap { $0 }.filter { !$0.isEmpty }
        if !place.isEmpty { html += "<div class=\"where\">\(HTMLText.escape(place.joined(separator: " · ")))</div>" }
        if let overlaps {
            html += "<div class=\"overlap\">⚠ overlaps \(HTMLText.escape(overlaps.joined(separator: "; ")))</div>"
        }
        return html + "</div>\n"
    }
}
