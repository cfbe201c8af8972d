import AlmanacWire
import Foundation

/// Writes sessions as an RFC 5545 calendar: CRLF line ends, lines folded at 75 octets without splitting a UTF-8
/// character, TEXT values escaped, times in UTC.
struct ICSWriter {
    /// The time stamped on every event (`DTSTAMP`).
    var stamp: Date
    var productID = "-//Almanac//almanac//EN"
    var calendarName: String?

    func calendar(_ sessions: [SessionSummary]) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(productID)", "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
        if let calendarName { lines.append("X-WR-CALNAME:" + Self.escape(calendarName)) }
        for session in sessions {
            guard let start = session.start else { continue }
            let end = session.end ?? start
            lines.append("BEGIN:VEVENT")
            lines.append("UID:" + Self.escape(uid(for: session)))
            lines.append("DTSTAMP:" + Self.utc(stamp))
            lines.append("DTSTART:" + Self.utc(start))
            lines.append("DTEND:" + Self.utc(max(end, start)))
            lines.append("SUMMARY:" + Self.escape(session.title))
            if let room = session.room { lines.append("LOCATION:" + Self.escape(room)) }
            var description: [String] = []
            if let subtitle = session.subtitle, !subtitle.isEmpty { description.append(subtitle) }
            if !session.persons.isEmpty { description.append(session.persons.joined(separator: ", ")) }
            if let abstract = session.abstract, !abstract.isEmpty { description.append(abstract) }
            if !description.isEmpty { lines.append("DESCRIPTION:" + Self.escape(description.joined(separator: "\n\n"))) }
            if let track = session.track { lines.append("CATEGORIES:" + Self.escape(track)) }
            if let url = session.url, !url.isEmpty { lines.append("URL:" + url) }
            lines.append("STATUS:" + (session.isCancelled ? "CANCELLED" : "CONFIRMED"))
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map { Self.fold($0) + "\r\n" }.joined()
    }

    /// A stable identity: the session's guid within its conference.
    func uid(for session: SessionSummary) -> String {
        "\(session.guid)@\(session.conference ?? "almanac").almanac"
    }

    /// `YYYYMMDDTHHMMSSZ`.
    static func utc(_ date: Date) -> String {
        let text = WireDate.string(from: date, fractionalSeconds: false)  // 2024-12-27T10:30:00Z
        return String(text.filter { $0 != "-" && $0 != ":" })
    }

    /// Escapes a TEXT value: `\` `;` `,` and newlines (RFC 5545 §3.3.11).
    static func escape(_ text: String) -> String {
        var output = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": output += "\\\\"
            case ";": output += "\\;"
            case ",": output += "\\,"
            case "\r": output += "\\n"
            case "\n": if !previousWasCR { output += "\\n" }
            default:
                if scalar.value < 0x20 && scalar != "\t" { break }  // other control characters are not allowed
                output.unicodeScalars.append(scalar)
            }
            previousWasCR = scalar == "\r"
        }
        return output
    }

    /// Folds a content line so no physical line exceeds 75 octets; continuation lines start with a space, and a
    /// fold never falls inside a UTF-8 sequence.
    static func fold(_ line: String, limit: Int = 75) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > limit else { return line }
        var pieces: [[UInt8]] = []
        var start = 0
        var budget = limit
        while start < bytes.count {
            var end = min(start + budget, bytes.count)
            // Step back while `end` points at a continuation byte (10xxxxxx).
            while end < bytes.count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(Array(bytes[start..<end]))
            start = end
            budget = limit - 1  // the leading space counts
        }
        return pieces.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\r\n ")
    }
}
