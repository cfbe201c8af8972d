extension JSONValue {
    /// Encodes the value as compact JSON text: no spaces, no newlines.
    ///
    /// Object keys come out in insertion order, or sorted by their UTF-8 bytes when `sortingKeys` is true; either
    /// way the output is deterministic. Strings escape `"`, `\` and every control character (a newline becomes
    /// `\n`), so an encoded value never contains a raw line break and one message is always one line. Non-ASCII
    /// characters are written as UTF-8, not escaped. Doubles use the shortest text that reads back to the same
    /// value; a non-finite double (which JSON cannot express) is written as `null`.
    ///
    /// - Complexity: O(n) in the size of the output, plus the key sorts when `sortingKeys` is true.
    public func encoded(sortingKeys: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        encode(into: &output, sortingKeys: sortingKeys)
        return output
    }

    /// The encoded text as a string; see ``encoded(sortingKeys:)``.
    public func encodedString(sortingKeys: Bool = false) -> String {
        String(decoding: encoded(sortingKeys: sortingKeys), as: UTF8.self)
    }

    /// Appends the encoded text to `output` (a byte array, the daemon's outgoing buffer…); see
    /// ``encoded(sortingKeys:)``.
    @inlinable
    public func encode<Output: JSONOutput>(into output: inout Output, sortingKeys: Bool = false) {
        switch self {
        case .null:
            output.writeJSONText("null")
        case .bool(let value):
            if value { output.writeJSONText("true") } else { output.writeJSONText("false") }
        case .int(let value):
            var text = String(value)
            text.withUTF8 { output.writeJSONBytes(UnsafeRawBufferPointer($0)) }
        case .double(let value):
            if value.isFinite {
                // Swift's shortest round-trip text ("2.0", "1e-05", "1e+20") is valid JSON and reads back as a double.
                var text = value.description
                text.withUTF8 { output.writeJSONBytes(UnsafeRawBufferPointer($0)) }
            } else {
                output.writeJSONText("null")
            }
        case .string(let value):
            Self.encodeString(value, into: &output)
        case .array(let elements):
            output.writeJSONByte(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.writeJSONByte(UInt8(ascii: ",")) }
                element.encode(into: &output, sortingKeys: sortingKeys)
            }
            output.writeJSONByte(UInt8(ascii: "]"))
        case .object(let object):
            if !sortingKeys, let kept = object.keptEncoding {
                output.writeJSONBytes(kept)
                return
            }
            output.writeJSONByte(UInt8(ascii: "{"))
            var members = object.members
            if sortingKeys { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            for (position, member) in members.enumerated() {
                if position > 0 { output.writeJSONByte(UInt8(ascii: ",")) }
                Self.encodeString(member.key, into: &output)
                output.writeJSONByte(UInt8(ascii: ":"))
                member.value.encode(into: &output, sortingKeys: sortingKeys)
            }
            output.writeJSONByte(UInt8(ascii: "}"))
        }
    }

    /// Writes a string as a JSON string literal.
    @inlinable
    public static func encodeString<Output: JSONOutput>(_ string: String, into output: inout Output) {
        output.writeJSONByte(UInt8(ascii: "\""))
        // Most strings need no escaping: copy their bytes at once.
        var string = string
        let plain = string.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) else { return false }
            output.writeJSONBytes(UnsafeRawBufferPointer(bytes))
            return true
        }
        if !plain { encodeEscaped(string, into: &output) }
        output.writeJSONByte(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The string's characters with `"`, `\` and control characters escaped (without the quotes).
    @usableFromInline
    static func encodeEscaped<Output: JSONOutput>(_ string: String, into output: inout Output) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.writeJSONText("\\\"")
            case UInt8(ascii: "\\"): output.writeJSONText("\\\\")
            case 0x0A: output.writeJSONText("\\n")
            case 0x0D: output.writeJSONText("\\r")
            case 0x09: output.writeJSONText("\\t")
            case 0x08: output.writeJSONText("\\b")
            case 0x0C: output.writeJSONText("\\f")
            case 0x00..<0x20, 0x7F:
                output.writeJSONText("\\u00")
                output.writeJSONByte(hexDigits[Int(byte >> 4)])
                output.writeJSONByte(hexDigits[Int(byte & 0x0F)])
            default: output.writeJSONByte(byte)
            }
        }
    }
}
