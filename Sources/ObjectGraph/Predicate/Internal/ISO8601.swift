import CivilDates
import Foundation

/// A small, allocation-light ISO 8601 reader and writer (UTC and numeric offsets).
enum ISO8601 {
    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fraction]]` and `Z` or `±HH[:]MM`.
    /// A date without a zone is UTC.
    static func parse(_ string: String) -> Date? {
        let b = Array(string.utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for k in i..<(i + count) {
                guard b[k] >= 0x30, b[k] <= 0x39 else { return nil }
                value = value * 10 + Int(b[k] - 0x30)
            }
            i += count
            return value
        }
        func take(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = Double(CivilDays.days(year: year, month: month, day: day)) * 86_400
        if take("T") || take(" ") {
            guard let hour = digits(2), take(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            seconds += Double(hour * 3600 + minute * 60)
            if take(":") {
                guard let second = digits(2), second < 61 else { return nil }
                seconds += Double(second)
                if take(".") || take(",") {
                    var scale = 0.1
                    var any = false
                    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                        seconds += Double(b[i] - 0x30) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            if take("Z") || take("z") {
            } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign: Double = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = take(":")
                guard let om = digits(2) else { return nil }
                seconds -= sign * Double(oh * 3600 + om * 60)
            }
        }
        guard i == b.count else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Formats as `YYYY-MM-DDTHH:MM:SS[.fff]Z` in UTC.
    static func format(_ date: Date) -> String {
        let total = date.timeIntervalSince1970
        let wholeSeconds = Int(total.rounded(.down))
        let fraction = total - Double(wholeSeconds)
        var days = wholeSeconds / 86_400
        var secondsOfDay = wholeSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = CivilDays.date(days: days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text =
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondsOfDay / 3600, 2)):"
            + "\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
        let millis = Int((fraction * 1000).rounded())
        if millis > 0, millis < 1000 { text += "." + pad(millis, 3) }
        return text + "Z"
    }
}
