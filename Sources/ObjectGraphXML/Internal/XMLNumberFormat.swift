import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The number formats of Core Data's XML store and Xcode model files.
///
/// - Dates in a store are seconds since 2001-01-01 00:00:00 UTC printed as Core Data prints them, with 20 digits
///   after the decimal point (`336046917.00164198875427246094`, C's `%.20f`); that is exact enough to read back
///   the same `Double`. Magnitudes of 1e20 and more, infinities and NaN use the shortest form instead.
/// - Doubles and floats use the shortest decimal form that reads back to the same value (`3.14`, `1e-05`).
/// - Integers are plain decimal; decimals use `Decimal`'s description (`12.345`).
enum XMLNumberFormat {
    /// The shortest decimal form of `value` that reads back unchanged; `nan`, `inf` and `-inf` for non-finite values.
    static func string(from value: Double) -> String {
        value.description
    }

    /// The shortest decimal form of a `Float` that reads back unchanged.
    static func string(from value: Float) -> String {
        value.description
    }

    /// A time interval as Core Data writes dates: `%.20f`.
    static func dateString(from interval: Double) -> String {
        guard interval.isFinite, abs(interval) < 1e20 else { return interval.description }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = withVaList([interval]) { vsnprintf(buffer.baseAddress!, 64, "%.20f", $0) }
            let length = min(Int(count), 63)
            return buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
        }
    }

    /// A time interval as Xcode writes date defaults and bounds: the shortest form, without `.0` for whole seconds.
    static func timeIntervalString(from interval: Double) -> String {
        if interval.rounded() == interval, abs(interval) < 1e15 { return String(Int64(interval)) }
        return interval.description
    }

    /// Parses a decimal integer, tolerating surrounding white space.
    static func integer(_ text: String) -> Int? {
        if let value = Int(text) { return value }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Parses a floating-point number, tolerating surrounding white space.
    static func double(_ text: String) -> Double? {
        if let value = Double(text) { return value }
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Parses a Boolean written as `1`/`0`, `YES`/`NO` or `true`/`false`.
    static func bool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "1", "YES", "yes", "true", "TRUE": true
        case "0", "NO", "no", "false", "FALSE": false
        default: nil
        }
    }

    /// Parses a decimal number in the POSIX locale (`.` separator).
    static func decimal(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isDecimalNumber(trimmed) else { return nil }
        return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Whether `text` is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one digit before the exponent
    /// (`Decimal(string:)` alone accepts prefixes such as `12abc`).
    private static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
