/// RFC 5545 TEXT value handling.
enum ICalendarText {
    /// Resolves `\n`, `\N`, `\,`, `\;` and `\\`; an unknown escape keeps the escaped character.
    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n", "N": result.append("\n")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }

    /// Splits a multi-valued TEXT property (such as `CATEGORIES`) on unescaped commas, then unescapes.
    static func splitList(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for character in text {
            if escaping {
                current.append("\\")
                current.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map { unescape($0).trimmingSpaces }.filter { !$0.isEmpty }
    }
}
