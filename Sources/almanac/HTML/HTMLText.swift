/// Text and attribute values for the HTML the client writes.
enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, and the control characters neither HTML nor
    /// XML allows (C0 but tab and line ends, DEL, C1, and the non-characters U+FFFE and U+FFFF) left out, so the
    /// result is safe both as element content and inside a quoted attribute.
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            case "\t", "\n": output.unicodeScalars.append(scalar)
            case "\r": output += "\n"
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFFFE || value == 0xFFFF { continue }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// A track colour as CSS (`#1a2b3c`), only when the file gives `#RGB` or `#RRGGBB` hex digits (anything else
    /// could break out of a style attribute).
    static func cssColor(_ text: String?) -> String? {
        guard let text, text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst()
        guard digits.count == 3 || digits.count == 6, digits.allSatisfy(\.isHexDigit) else { return nil }
        return "#" + digits.lowercased()
    }

    /// A fragment identifier made of `a-z`, `0-9` and `-` (`38c3-2024-12-27`).
    static func anchor(_ parts: [String]) -> String {
        let text = parts.joined(separator: "-").lowercased()
        var output = ""
        for character in text {
            if character.isASCII, character.isLetter || character.isNumber {
                output.append(character)
            } else if output.last != "-" {
                output.append("-")
            }
        }
        return "day-" + output
    }
}
