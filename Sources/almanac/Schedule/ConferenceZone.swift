import Foundation

/// Reads the zone names the daemon sends, one way everywhere in the client: an IANA name (`Europe/Berlin`), a
/// fixed offset (`+01:00`, `-05:30`, `+0100`, `+01`, also after `UTC` or `GMT`), or `UTC` (`Z`, `GMT`).
///
/// Foundation's `TimeZone(identifier:)` alone reads only the first kind, and a conference whose file gives only
/// offsets (`2024-12-27T11:00+01:00`) is served with a fixed-offset zone.
enum ConferenceZone {
    static let utc = TimeZone(secondsFromGMT: 0)!

    /// The zone `name` stands for, or nil when it is none of the three kinds.
    static func timeZone(named name: String) -> TimeZone? {
        let text = name.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let upper = text.uppercased()
        if ["UTC", "Z", "GMT", "UT", "ETC/UTC", "ETC/GMT", "ETC/UCT", "UCT", "ZULU", "ETC/ZULU"].contains(upper) {
            return utc
        }
        if let seconds = offset(text) { return zone(secondsFromGMT: seconds) }
        for prefix in ["UTC", "GMT"] where upper.hasPrefix(prefix) {
            if let seconds = offset(String(text.dropFirst(prefix.count))) { return zone(secondsFromGMT: seconds) }
        }
        return TimeZone(identifier: text)
    }

    /// The seconds east of UTC of `±HH:MM`, `±HHMM` or `±HH`, or nil.
    static func offset(_ text: String) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" || sign == "\u{2212}" else { return nil }
        let rest = Array(text.dropFirst())
        let digits: [Character]
        switch rest.count {
        case 2, 4: digits = rest
        case 5 where rest[2] == ":": digits = Array(rest[0..<2] + rest[3..<5])
        default: return nil
        }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(String(digits.prefix(2))) else {
            return nil
        }
        let minutes = digits.count == 4 ? Int(String(digits.suffix(2))) ?? 60 : 0
        guard hours <= 18, minutes < 60 else { return nil }
        return (sign == "+" ? 1 : -1) * (hours * 3600 + minutes * 60)
    }

    /// `+01:00`, `-05:30`, `+00:00`.
    static func offsetText(_ seconds: Int) -> String {
        let magnitude = abs(seconds) / 60
        let hours = magnitude / 60
        let minutes = magnitude % 60
        return (seconds < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + String(hours) + ":" + (minutes < 10 ? "0" : "")
            + String(minutes)
    }

    private static func zone(secondsFromGMT seconds: Int) -> TimeZone? {
        seconds == 0 ? utc : TimeZone(secondsFromGMT: seconds)
    }
}
