extension XMLWriter {
    /// Appends `string` escaped for text (`inAttribute == false`) or a double-quoted attribute value.
    /// Runs of bytes that need no escaping are copied at once.
    mutating func appendEscaped(_ string: String, inAttribute: Bool) throws(XMLError) {
        var string = string
        let failure = string.withUTF8 { bytes -> XMLError? in
            do throws(XMLError) {
                try appendEscaped(bytes, inAttribute: inAttribute)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            throw failure
        }
    }

    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, inAttribute: Bool) throws(XMLError) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let replacement: StaticString?
            var skip = 1
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\r"): replacement = "&#13;"
            case UInt8(ascii: "\""): replacement = inAttribute ? "&quot;" : nil
            case UInt8(ascii: "\n"): replacement = inAttribute ? "&#10;" : nil
            case UInt8(ascii: "\t"): replacement = inAttribute ? "&#9;" : nil
            case 0x00...0x1F:
                replacement = try invalidCharacter(byte)
            case 0xEF
            where index + 2 < bytes.count && bytes[index + 1] == 0xBF
                && (bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF):
                replacement = try invalidCharacter(byte)  // U+FFFE, U+FFFF
                skip = 3
            default:
                replacement = nil
            }
            if let replacement {
                appendBytes(bytes, from: runStart, to: index)
                appendStatic(replacement)
                index += skip
                runStart = index
            } else {
                index += 1
            }
        }
        appendBytes(bytes, from: runStart, to: bytes.count)
    }

    private func invalidCharacter(_ byte: UInt8) throws(XMLError) -> StaticString {
        switch configurationInvalidCharacters {
        case .replace:
            return "\u{FFFD}"
        case .reject:
            let scalar =
                byte < 0x20 ? "U+\(String(byte, radix: 16, uppercase: true).leftPadded(to: 4))" : "U+FFFE/U+FFFF"
            throw XMLError(
                code: .invalidCharacter,
                message: "The character \(scalar) cannot appear in an XML 1.0 document, not even as a character "
                    + "reference. Remove it, encode the value (for example as Base64), or configure the writer "
                    + "to replace such characters."
            )
        }
    }

    /// Checks that `name` can be an element or attribute name: not empty, no markup, quote, or white space
    /// characters, not starting with a digit, `-` or `.`. Non-ASCII letters are accepted as XML allows.
    static func validate(name: String) throws(XMLError) {
        var isValid = !name.isEmpty
        for (offset, byte) in name.utf8.enumerated() where isValid {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
                UInt8(ascii: ":"), 0x80...0xFF:
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                isValid = offset > 0
            default:
                isValid = false
            }
        }
        guard isValid else {
            throw XMLError(
                code: .invalidName,
                message: "\"\(name)\" is not a valid XML name. Names start with a letter, '_' or ':' and contain "
                    + "only letters, digits, '-', '.', '_' and ':'."
            )
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: Swift.max(0, length - count)) + self
    }
}
