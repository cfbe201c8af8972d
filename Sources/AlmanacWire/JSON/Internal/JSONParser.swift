/// A syntax error found by ``JSONParser``, converted to `WireError.parseError` at the module's edge.
struct JSONSyntaxError: Error {
    var message: String
    var offset: Int
}

/// A strict recursive-descent JSON parser over a byte buffer.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int = 0
    private let maxDepth: Int
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw fail("unexpected characters after the JSON value")
        }
        return value
    }

    private func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(message: message, offset: offset ?? index)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(printable(bytes[index]))'")
        }
    }

    private func printable(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("invalid literal", at: start) }
        let matches = literal.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            return true
        }
        guard matches else { throw fail("invalid literal", at: start) }
        index += count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth) levels") }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default: throw fail("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected a string key in object")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard object.insertNew(key, value) else { throw fail("duplicate key \"\(key)\"", at: keyOffset) }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            default: throw fail("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                index += 1
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string", at: start) }
        // Slow path: copy with escapes resolved.
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape(), to: &buffer)
                default: throw fail("invalid escape '\\\(printable(escape))'", at: index - 2)
                }
            default:
                if byte < 0x20 { throw fail("unescaped control character in string") }
                buffer.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string", at: start)
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Parses the hex digits after `\u` (and a following low surrogate escape when needed).
    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let escapeStart = index - 2
        let first = try parseHex4()
        switch first {
        case 0xD800...0xDBFF:
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw fail("unpaired high surrogate in \\u escape", at: escapeStart) }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw fail("high surrogate not followed by a low surrogate", at: escapeStart)
            }
            let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(scalar)!
        case 0xDC00...0xDFFF:
            throw fail("unpaired low surrogate in \\u escape", at: escapeStart)
        default:
            return Unicode.Scalar(first)!
        }
    }

    private func appendScalar(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        UTF8.encode(scalar) { buffer.append($0) }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in number", at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("digit expected after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("digit expected in exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let value = parseInt64(slice) {
            return .int(value)
        }
        let text = String(decoding: slice, as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("number out of range", at: start) }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Parses an already validated integer literal, or returns `nil` when it overflows 64 bits.
    private func parseInt64(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        var negative = false
        var position = 0
        if digits[0] == UInt8(ascii: "-") {
            negative = true
            position = 1
        }
        var value: Int64 = 0
        while position < digits.count {
            let digit = Int64(digits[position] - 0x30)
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) =
                negative ? multiplied.subtractingReportingOverflow(digit) : multiplied.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = added
            position += 1
        }
        return value
    }
}
