/// Text clean-up shared by readers.
enum FieldText {
    /// Trimmed, or nil when empty.
    static func optional(_ text: String?) -> String? {
        guard let text else { return nil }
        return text.trimmedNonEmpty
    }

    /// Lowercases a guid that parses as a UUID; trims other guids.
    static func guid(_ text: String?) -> String? {
        guard let trimmed = text?.trimmedNonEmpty else { return nil }
        switch uuidCase(trimmed) {
        case .upper: return trimmed.lowercased()
        case .lower, .notUUID: return trimmed
        }
    }

    private enum UUIDCase { case notUUID, lower, upper }

    /// Whether `text` is a UUID (`8-4-4-4-12` hexadecimal digits; checked by hand because `UUID(uuidString:)` uses
    /// `sscanf` on Linux), and whether it has upper-case digits (which a guid is lowercased for). Reads the bytes in
    /// place (a copy only for a string without contiguous UTF-8).
    private static func uuidCase(_ text: String) -> UUIDCase {
        text.utf8.withContiguousStorageIfAvailable(uuidCase(bytes:)) ?? uuidCase(bytes: Array(text.utf8))
    }

    private static func uuidCase<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes) -> UUIDCase
    where Bytes.Index == Int {
        guard bytes.count == 36 else { return .notUUID }
        var hasUpper = false
        for offset in 0..<36 {
            let byte = bytes[bytes.startIndex + offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return .notUUID }
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                continue
            } else if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") {
                continue
            } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") {
                hasUpper = true
            } else {
                return .notUUID
            }
        }
        return hasUpper ? .upper : .lower
    }

    /// `true`, `yes` or `1` (any case) is true; anything else false.
    static func flag(_ text: String?) -> Bool {
        guard let lower = text?.trimmedNonEmpty?.lowercased() else { return false }
        return lower == "true" || lower == "yes" || lower == "1"
    }

    /// `cancelled`/`canceled` (any case) means cancelled; anything else confirmed.
    static func status(_ text: String?) -> SessionStatus {
        guard let lower = text?.trimmedNonEmpty?.lowercased() else { return .confirmed }
        return lower == "cancelled" || lower == "canceled" ? .cancelled : .confirmed
    }
}
