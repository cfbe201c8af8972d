/// A parsed date or date-time: wall clock plus, when the text carried one, its UTC offset.
struct ParsedTimestamp: Hashable, Sendable {
    var local: LocalDateTime
    /// Seconds east of UTC; nil for floating (zone-less) times.
    var offset: Int?
    /// Whether the text was a bare date.
    var isDateOnly: Bool

    /// The instant, when the offset is known.
    var secondsSinceEpoch: Int64? {
        offset.map { local.secondsSinceEpoch - Int64($0) }
    }
}

/// Hand-written parsers for the few timestamp shapes schedule files use; much faster than
/// `ISO8601DateFormatter` and free of locale surprises.
enum TimestampParser {
    /// `yyyy-MM-dd`, `yyyy-MM-ddTHH:mm[:ss[.fff]]` followed by nothing, `Z` or `±HH[:mm]`;
    /// a space may stand for `T`.
    static func parseISO<S: StringProtocol>(_ text: S) -> ParsedTimestamp? {
        var scanner = DigitScanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let year = scanner.number(digits: 4), scanner.eat(UInt8(ascii: "-")),
            let month = scanner.number(digits: 2), scanner.eat(UInt8(ascii: "-")),
            let day = scanner.number(digits: 2)
        else { return nil }
        let date = LocalDate(year: year, month: month, day: day)
        guard date.isValid else { return nil }
        scanner.skipTrailingSpaces()
        if scanner.isAtEnd { return ParsedTimestamp(local: LocalDateTime(date: date), offset: nil, isDateOnly: true) }
        guard scanner.eat(UInt8(ascii: "T")) || scanner.eat(UInt8(ascii: "t")) || scanner.eat(UInt8(ascii: " ")),
            let hour = scanner.number(digits: 2), scanner.eat(UInt8(ascii: ":")),
            let minute = scanner.number(digits: 2)
        else { return nil }
        var second = 0
        if scanner.eat(UInt8(ascii: ":")) {
            guard let value = scanner.number(digits: 2) else { return nil }
            second = value
            if scanner.eat(UInt8(ascii: ".")) || scanner.eat(UInt8(ascii: ",")) { scanner.skipDigits() }
        }
        guard let secondOfDay = clock(hour, minute, second) else { return nil }
        let local = LocalDateTime(date: date, secondOfDay: secondOfDay)
        scanner.skipSpaces()
        if scanner.isAtEnd { return ParsedTimestamp(local: local, offset: nil, isDateOnly: false) }
        if scanner.eat(UInt8(ascii: "Z")) || scanner.eat(UInt8(ascii: "z")) {
            scanner.skipTrailingSpaces()
            return scanner.isAtEnd ? ParsedTimestamp(local: local, offset: 0, isDateOnly: false) : nil
        }
        let sign: Int
        if scanner.eat(UInt8(ascii: "+")) {
            sign = 1
        } else if scanner.eat(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        guard let offsetHours = scanner.number(digits: 2), offsetHours <= 18 else { return nil }
        var offsetMinutes = 0
        _ = scanner.eat(UInt8(ascii: ":"))
        if !scanner.isAtEnd {
            guard let value = scanner.number(digits: 2), value < 60 else { return nil }
            offsetMinutes = value
        }
        scanner.skipTrailingSpaces()
        guard scanner.isAtEnd else { return nil }
        return ParsedTimestamp(
            local: local, offset: sign * (offsetHours * 3600 + offsetMinutes * 60), isDateOnly: false)
    }

    /// iCalendar `DATE` (`yyyyMMdd`) or `DATE-TIME` (`yyyyMMddTHHmmss[Z]`).
    static func parseICalendar<S: StringProtocol>(_ text: S) -> ParsedTimestamp? {
        var scanner = DigitScanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let year = scanner.number(digits: 4), let month = scanner.number(digits: 2),
            let day = scanner.number(digits: 2)
        else { return nil }
        let date = LocalDate(year: year, month: month, day: day)
        guard date.isValid else { return nil }
        scanner.skipTrailingSpaces()
        if scanner.isAtEnd { return ParsedTimestamp(local: LocalDateTime(date: date), offset: nil, isDateOnly: true) }
        guard scanner.eat(UInt8(ascii: "T")) || scanner.eat(UInt8(ascii: "t")),
            let hour = scanner.number(digits: 2), let minute = scanner.number(digits: 2),
            let second = scanner.number(digits: 2), let secondOfDay = clock(hour, minute, second)
        else { return nil }
        let local = LocalDateTime(date: date, secondOfDay: secondOfDay)
        let isUTC = scanner.eat(UInt8(ascii: "Z")) || scanner.eat(UInt8(ascii: "z"))
        scanner.skipTrailingSpaces()
        guard scanner.isAtEnd else { return nil }
        return ParsedTimestamp(local: local, offset: isUTC ? 0 : nil, isDateOnly: false)
    }

    /// A clock time `H:MM`, `HH:MM` or `HH:MM:SS`, as seconds since midnight (hours up to 23).
    static func parseClockTime<S: StringProtocol>(_ text: S) -> Int? {
        guard let seconds = parseHMS(text), seconds < 86_400 else { return nil }
        return seconds
    }

    /// `H+:MM` or `H+:MM:SS` as seconds, with any number of hour digits (for durations).
    static func parseHMS<S: StringProtocol>(_ text: S) -> Int? {
        var fields = (0, 0, 0)
        var count = 0
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            if byte >= 48 && byte <= 57 {
                guard digits < 6 else { return nil }
                current = current * 10 + Int(byte - 48)
                digits += 1
            } else if byte == UInt8(ascii: ":") {
                guard digits > 0, count < 2 else { return nil }
                if count == 0 { fields.0 = current } else { fields.1 = current }
                count += 1
                current = 0
                digits = 0
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == 10 || byte == 13 {
                continue
            } else {
                return nil
            }
        }
        guard digits > 0, count >= 1 else { return nil }
        if count == 1 { fields.1 = current } else { fields.2 = current }
        count += 1
        guard fields.1 < 60, count < 3 || fields.2 < 61 else { return nil }
        return fields.0 * 3600 + fields.1 * 60 + (count == 3 ? min(fields.2, 59) : 0)
    }

    private static func clock(_ hour: Int, _ minute: Int, _ second: Int) -> Int? {
        guard hour < 24 || (hour == 24 && minute == 0 && second == 0), minute < 60, second <= 60 else { return nil }
        return hour == 24 ? 86_399 : hour * 3600 + minute * 60 + min(second, 59)
    }
}
