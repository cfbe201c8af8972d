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
        return isUUID(trimmed) ? trimmed.lowercased() : trimmed
    }

    /// `8-4-4-4-12` hexadecimal digits; checked by hand because `UUID(uuidString:)` uses `sscanf` on Linux.
    static func isUUID(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        for (offset, byte) in text.utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let lower = byte | 0x20
                guard (byte >= 48 && byte <= 57) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f")) else {
                    return false
                }
            }
        }
        return true
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
