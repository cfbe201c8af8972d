/// A cursor over ASCII bytes.
struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func eat(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<digits {
            let byte = bytes[index + offset]
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        index += digits
        return value
    }

    /// Reads an unsigned decimal number of 1 to 9 digits.
    mutating func number() -> Int? {
        var value = 0
        var count = 0
        while index < bytes.count, bytes[index] >= 48 && bytes[index] <= 57, count < 9 {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
            count += 1
        }
        return count > 0 ? value : nil
    }

    mutating func skipDigits() {
        while index < bytes.count, bytes[index] >= 48 && bytes[index] <= 57 { index += 1 }
    }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 || bytes[index] == 10 || bytes[index] == 13 {
            index += 1
        }
    }

    mutating func skipTrailingSpaces() { skipSpaces() }
}
