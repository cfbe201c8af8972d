import Foundation

/// One session in full, for `almanac show`: a heading, labelled facts, then the abstract and description wrapped
/// to the width.
struct SessionPage {
    var session: SessionSummary
    var display: TimeDisplay
    /// The zone of the person reading (the machine's): its times are added when they differ from the conference's.
    var viewer: TimeZone
    var isFavorite: Bool
    /// Favourite sessions that overlap this one.
    var overlapping: [SessionSummary] = []
    /// The width text is wrapped to (at most 100 columns, for reading).
    var width = 80

    func render(colors: Bool) -> String {
        let values = session.raw.values
        func text(_ key: String) -> String? {
            guard let value = values[key]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines),
                !value.isEmpty
            else { return nil }
            return value
        }
        var out = TextStyle.bold.apply(session.title, colors: colors) + "\n"
        if let subtitle = session.subtitle, !subtitle.isEmpty { out += subtitle + "\n" }
        out += "\n"
        var facts: [(String, String)] = []
        facts.append(("When", when()))
        if let conference = session.conference {
            facts.append(("Conference", text("conference.title").map { "\($0) (\(conference))" } ?? conference))
        }
        facts.append(("Room", session.room ?? "—"))
        if let track = session.track { facts.append(("Track", track)) }
        if let language = session.language, !language.isEmpty { facts.append(("Language", language)) }
        if let type = text("type") { facts.append(("Type", type)) }
        let persons = values["persons.name"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if !persons.isEmpty {
            facts.append((persons.count == 1 ? "Speaker" : "Speakers", persons.joined(separator: ", ")))
        }
        if session.isCancelled { facts.append(("Status", "cancelled")) }
        facts.append(("Favourite", isFavorite ? "★ yes" : "no (almanac fav add \(session.guid))"))
        if values["doNotRecord"]?.boolValue == true { facts.append(("Recording", "not recorded (do not record)")) }
        if let url = session.url, !url.isEmpty { facts.append(("URL", url)) }
        let titles = values["links.title"]?.arrayValue?.map { $0.stringValue ?? "" } ?? []
        let urls = values["links.url"]?.arrayValue?.map { $0.stringValue ?? "" } ?? []
        for (index, url) in urls.enumerated() where !url.isEmpty {
            let title = index < titles.count && !titles[index].isEmpty ? titles[index] + ": " : ""
            facts.append((index == 0 ? "Links" : "", title + url))
        }
        if let feedback = text("feedbackURL") { facts.append(("Feedback", feedback)) }
        facts.append(("GUID", session.guid))
        for (index, other) in overlapping.enumerated() {
            let minutes = Int(((other.overlap(with: session) ?? 0) / 60).rounded())
            let line = "★ \(other.title) (\(other.room ?? "?"), \(display.span(other))): \(minutes) min overlap"
            facts.append((index == 0 ? "Overlaps" : "", line))
        }
        let labelWidth = facts.map { TextWidth.of($0.0) }.max() ?? 0
        let textWidth = max(20, min(width, 100) - labelWidth - 4)
        for (label, value) in facts {
            let lines = GridRenderer.wrap(value, width: textWidth)
            for (index, line) in lines.enumerated() {
                let head = index == 0 ? TextWidth.pad(label, to: labelWidth) : String(repeating: " ", count: labelWidth)
                out += "  " + TextStyle.dim.apply(head, colors: colors) + "  " + line + "\n"
            }
        }
        for (heading, key) in [("Abstract", "abstract"), ("Description", "details")] {
            guard let body = text(key).map(Self.plainText), !body.isEmpty else { continue }
            // The description often repeats the abstract.
            if key == "details", body == text("abstract").map(Self.plainText) { continue }
            out += "\n" + TextStyle.bold.apply(heading, colors: colors) + "\n"
            for paragraph in body.components(separatedBy: "\n\n") {
                for line in GridRenderer.wrap(paragraph, width: min(width, 100) - 2) { out += "  " + line + "\n" }
                out += "\n"
            }
            out.removeLast()
        }
        return out
    }

    /// `Mon 23 Nov 2026 09:30–10:00 CET`, and the viewer's time when the zone differs.
    private func when() -> String {
        guard let start = session.start else { return "no time given" }
        let zone = display.timeZone(for: session.timeZone)
        var text = Self.span(start, session.end, in: zone, withYear: true)
        if display.zone == .conference, viewer.secondsFromGMT(for: start) != zone.secondsFromGMT(for: start) {
            text += " (your time: " + Self.span(start, session.end, in: viewer, withYear: false) + ")"
        }
        return text
    }

    static func span(_ start: Date, _ end: Date?, in zone: TimeZone, withYear: Bool) -> String {
        var text = TimeDisplay.day(start, in: zone)
        if withYear { text += " " + String(TimeDisplay.calendar(in: zone).component(.year, from: start)) }
        text += " " + TimeDisplay.clock(start, in: zone)
        if let end { text += "–" + TimeDisplay.clock(end, in: zone) }
        return text + " " + TimeDisplay.abbreviation(of: zone, at: start)
    }

    /// HTML as schedules carry it (`<p>`, `<br>`, entities) as plain paragraphs.
    static func plainText(_ html: String) -> String {
        var text = html.replacingOccurrences(of: "\r\n", with: "\n")
        for (pattern, replacement) in [
            ("(?i)<br\\s*/?>", "\n"), ("(?i)</p>|</li>|</h[1-6]>|</div>", "\n\n"), ("(?i)<li[^>]*>", "• "),
            ("<[^>]+>", ""),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        for (entity, character) in [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&nbsp;", " "),
            ("&amp;", "&"),
        ] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        let paragraphs = text.components(separatedBy: "\n\n").map {
            $0.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        return paragraphs.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}
