/// A signed iCalendar duration: nominal days (which keep the wall clock across DST) plus exact seconds.
struct NominalDuration: Hashable, Sendable {
    var days: Int
    var seconds: Int64

    /// Approximate length in seconds, counting a day as 86,400 seconds.
    var approximateSeconds: Int64 { Int64(days) * 86_400 + seconds }
}

/// Parsers for frab clock durations and ISO 8601 / RFC 5545 durations.
enum DurationParser {
    /// frab `HH:MM` or `H:MM:SS` (hours may exceed 23), as seconds.
    static func parseClock<S: StringProtocol>(_ text: S) -> Int? {
        TimestampParser.parseHMS(text)
    }

    /// RFC 5545 / ISO 8601 `[+-]P[nW][nD][T[nH][nM][nS]]`, such as `PT1H30M`, `P1D` or `-PT15M`.
    static func parseISO8601<S: StringProtocol>(_ text: S) -> NominalDuration? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 32 || last == 9 || last == 13 || last == 10 { bytes = bytes.dropLast() }
        var sign: Int64 = 1
        if bytes.first == UInt8(ascii: "-") {
            sign = -1
            bytes = bytes.dropFirst()
        } else if bytes.first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        guard let p = bytes.first, p == UInt8(ascii: "P") || p == UInt8(ascii: "p") else { return nil }
        bytes = bytes.dropFirst()
        var days: Int64 = 0
        var seconds: Int64 = 0
        var inTime = false
        var number: Int64? = nil
        var sawComponent = false
        for byte in bytes {
            switch byte {
            case 48...57:
                let next = (number ?? 0) * 10 + Int64(byte - 48)
                guard next < 100_000_000 else { return nil }
                number = next
            case UInt8(ascii: "T"), UInt8(ascii: "t"):
                guard !inTime, number == nil else { return nil }
                inTime = true
            default:
                guard let value = number else { return nil }
                switch (inTime, byte | 0x20) {
                case (false, UInt8(ascii: "w")): days += value * 7
                case (false, UInt8(ascii: "d")): days += value
                case (true, UInt8(ascii: "h")): seconds += value * 3600
                case (true, UInt8(ascii: "m")): seconds += value * 60
                case (true, UInt8(ascii: "s")): seconds += value
                default: return nil
                }
                number = nil
                sawComponent = true
            }
        }
        guard sawComponent, number == nil, days < 1_000_000 else { return nil }
        return NominalDuration(days: Int(sign * days), seconds: sign * seconds)
    }
}
