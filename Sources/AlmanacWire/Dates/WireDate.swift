import CivilDates
import Foundation

/// Dates on the wire: ISO 8601 / RFC 3339 strings with an offset, e.g. `2024-12-27T10:30:00+01:00` or
/// `2024-12-27T09:30:00Z`.
///
/// The formatter and parser are written out by hand (no `DateFormatter`), so they are fast, `Sendable` and give
/// the same text on every platform.
public enum WireDate {
    /// Formats `date` in `timeZone` (UTC when nil, written `Z`), with milliseconds only when asked or when the
    /// date has a fraction of a second and `fractionalSeconds` is nil.
    public static func string(from date: Date, in timeZone: TimeZone? = nil, fractionalSeconds: Bool? = nil) -> String {
        let interval = date.timeIntervalSince1970
        let offset = timeZone?.secondsFromGMT(for: date) ?? 0
        let wholeSeconds = interval.rounded(.down)
        var milliseconds = Int(((interval - wholeSeconds) * 1000).rounded())
        var seconds = Int64(wholeSeconds)
        if milliseconds == 1000 {
            milliseconds = 0
            seconds += 1
        }
        let local = seconds + Int64(offset)
        let days = CivilDays.floorDivide(Int(local), 86_400)
        let secondOfDay = Int(local) - days * 86_400
        let (year, month, day) = CivilDays.date(days: days)
        // Written byte by byte: this runs for every date of every reply.
        var text: [UInt8] = []
        text.reserveCapacity(32)
        func digits(_ value: Int, _ width: Int) {
            if value < 0 {
                text.append(UInt8(ascii: "-"))
                digits(-value, width)
                return
            }
            let decimal = String(value).utf8
            if decimal.count < width { text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - decimal.count)) }
            text.append(contentsOf: decimal)
        }
        func two(_ value: Int) {
            text.append(UInt8(ascii: "0") + UInt8(value / 10))
            text.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        if year >= 0, year <= 9999 {
            two(year / 100)
            two(year % 100)
        } else {
            digits(year, 4)
        }
        text.append(UInt8(ascii: "-"))
        two(month)
        text.append(UInt8(ascii: "-"))
        two(day)
        text.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600)
        text.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60)
        text.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        if fractionalSeconds ?? (milliseconds != 0) {
            text.append(UInt8(ascii: "."))
            text.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
            two(milliseconds % 100)
        }
        if offset == 0 {
            text.append(UInt8(ascii: "Z"))
        } else {
            let magnitude = abs(offset) / 60
            text.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            two(magnitude / 60 % 100)
            text.append(UInt8(ascii: ":"))
            two(magnitude % 60)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fff]]` followed by `Z` or an offset (`±HH:MM`, `±HHMM`, `±HH`); a space may
    /// stand for the `T`. Returns nil for anything else, including a time without an offset.
    public static func date(from string: String) -> Date? {
        var scanner = Scanner(Array(string.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2)
        else { return nil }
        var second = 0
        var fraction = 0.0
        if scanner.skip(":") {
            guard let parsed = scanner.digits(2) else { return nil }
            second = parsed
            if scanner.skip(".") || scanner.skip(",") {
                var scale = 0.1
                var count = 0
                while let digit = scanner.digits(1) {
                    fraction += Double(digit) * scale
                    scale /= 10
                    count += 1
                }
                guard count > 0 else { return nil }
            }
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2) else { return nil }
            var minutes = 0
            if scanner.skip(":") {
                guard let parsed = scanner.digits(2) else { return nil }
                minutes = parsed
            } else if let parsed = scanner.digits(2) {
                minutes = parsed
            }
            guard hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.isAtEnd, (1...12).contains(month), day >= 1, day <= CivilDays.daysIn(month: month, year: year),
            hour < 24 || (hour == 24 && minute == 0 && second == 0), minute < 60, second < 61
        else { return nil }
        let days = Int64(CivilDays.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }

        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
    }
}

extension JSONValue {
    /// A date as its wire string (UTC).
    public static func date(_ date: Date) -> JSONValue { .string(WireDate.string(from: date)) }

    /// The date, if this is a string in the wire's date format.
    public var dateValue: Date? { stringValue.flatMap(WireDate.date(from:)) }
}
