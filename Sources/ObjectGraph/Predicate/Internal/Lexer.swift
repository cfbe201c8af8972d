import Foundation

/// A hand-written lexer over the UTF-8 bytes of a format string; substitutes format arguments as it goes.
struct Lexer {
    private let bytes: [UInt8]
    private var position = 0
    private let arguments: [Any?]
    private(set) var argumentIndex = 0
    /// Values substituted for `%@`, `%d`, `%f`, `%s`, referenced by ``Token/Kind/argumentValue(_:)``.
    private(set) var argumentValues: [PredicateValue] = []

    init(bytes: [UInt8], arguments: [Any?]) {
        self.bytes = bytes
        self.arguments = arguments
    }

    /// True when every argument was consumed.
    var usedAllArguments: Bool { argumentIndex >= arguments.count }

    private func byte(at index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F || b >= 0x80
    }

    private static func isIdentifierPart(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= 0x30 && b <= 0x39)
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private func error(_ code: ObjectPredicateError.Code, _ message: String, at offset: Int) -> ObjectPredicateError {
        ObjectPredicateError(code, message, offset: offset)
    }

    /// Reads the next token.
    mutating func next() throws -> Token {
        while position < bytes.count {
            let b = bytes[position]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 } else { break }
        }
        let start = position
        guard position < bytes.count else { return Token(kind: .end, offset: start) }
        let b = bytes[position]
        if Self.isIdentifierStart(b) { return Token(kind: identifierOrKeyword(), offset: start) }
        if Self.isDigit(b) { return Token(kind: try number(), offset: start) }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return Token(kind: .string(try string(quote: b)), offset: start)
        case UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "@"):
            position += 1
            guard Self.isIdentifierStart(byte(at: position)) else {
                throw error(.syntaxError, "'\(Character(Unicode.Scalar(b)))' must be followed by a name", at: start)
            }
            let name = word()
            switch b {
            case UInt8(ascii: "$"): return Token(kind: .variable(name), offset: start)
            case UInt8(ascii: "#"): return Token(kind: .escapedIdentifier(name), offset: start)
            default: return Token(kind: .collectionOperator("@" + name), offset: start)
            }
        case UInt8(ascii: "%"):
            return Token(kind: try formatSpecifier(), offset: start)
        default:
            return Token(kind: .symbol(try symbol()), offset: start)
        }
    }

    private mutating func word() -> String {
        let start = position
        while position < bytes.count, Self.isIdentifierPart(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func identifierOrKeyword() -> Token.Kind {
        let start = position
        while position < bytes.count, Self.isIdentifierPart(bytes[position]) { position += 1 }
        if let keyword = Keyword.match(bytes[start..<position]) { return .keyword(keyword) }
        // Apple-style function names: `sum:`, `add:to:`.
        while byte(at: position) == UInt8(ascii: ":") {
            position += 1
            while position < bytes.count, Self.isIdentifierPart(bytes[position]) { position += 1 }
        }
        return .identifier(String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func symbol() throws -> Symbol {
        let start = position
        let b = bytes[position]
        let n = byte(at: position + 1)
        position += 1
        func two(_ symbol: Symbol) -> Symbol {
            position += 1
            return symbol
        }
        switch b {
        case UInt8(ascii: "("): return .leftParen
        case UInt8(ascii: ")"): return .rightParen
        case UInt8(ascii: "{"): return .leftBrace
        case UInt8(ascii: "}"): return .rightBrace
        case UInt8(ascii: "["): return .leftBracket
        case UInt8(ascii: "]"): return .rightBracket
        case UInt8(ascii: ","): return .comma
        case UInt8(ascii: "."): return .dot
        case UInt8(ascii: "+"): return .plus
        case UInt8(ascii: "-"): return .minus
        case UInt8(ascii: "/"): return .slash
        case UInt8(ascii: "*"): return n == UInt8(ascii: "*") ? two(.power) : .star
        case UInt8(ascii: "="):
            switch n {
            case UInt8(ascii: "="): return two(.equal)
            case UInt8(ascii: "<"): return two(.lessOrEqual)
            case UInt8(ascii: ">"): return two(.greaterOrEqual)
            default: return .equal
            }
        case UInt8(ascii: "!"): return n == UInt8(ascii: "=") ? two(.notEqual) : .bang
        case UInt8(ascii: "<"):
            if n == UInt8(ascii: "=") { return two(.lessOrEqual) }
            return n == UInt8(ascii: ">") ? two(.notEqual) : .less
        case UInt8(ascii: ">"): return n == UInt8(ascii: "=") ? two(.greaterOrEqual) : .greater
        case UInt8(ascii: "&") where n == UInt8(ascii: "&"): return two(.ampersands)
        case UInt8(ascii: "|") where n == UInt8(ascii: "|"): return two(.pipes)
        default:
            let scalarText = b < 0x80 ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
            throw error(.syntaxError, "unexpected character \(scalarText)", at: start)
        }
    }

    private mutating func number() throws -> Token.Kind {
        let start = position
        if bytes[position] == UInt8(ascii: "0"), position + 1 < bytes.count {
            let radix: UInt64?
            switch bytes[position + 1] {
            case UInt8(ascii: "x"), UInt8(ascii: "X"): radix = 16
            case UInt8(ascii: "o"), UInt8(ascii: "O"): radix = 8
            case UInt8(ascii: "b"), UInt8(ascii: "B"): radix = 2
            default: radix = nil
            }
            if let radix {
                position += 2
                var value: UInt64 = 0
                var digits = 0
                while position < bytes.count, let digit = Self.digitValue(bytes[position]), digit < radix {
                    let (m, o1) = value.multipliedReportingOverflow(by: radix)
                    let (s, o2) = m.addingReportingOverflow(digit)
                    if o1 || o2 { throw error(.invalidNumber, "integer literal is too large", at: start) }
                    value = s
                    digits += 1
                    position += 1
                }
                if digits == 0 || Self.isIdentifierPart(byte(at: position)) {
                    throw error(.invalidNumber, "malformed integer literal", at: start)
                }
                return .integer(value)
            }
        }
        while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        var isFloating = false
        if byte(at: position) == UInt8(ascii: "."), Self.isDigit(byte(at: position + 1)) {
            isFloating = true
            position += 1
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        }
        if byte(at: position) == UInt8(ascii: "e") || byte(at: position) == UInt8(ascii: "E") {
            isFloating = true
            position += 1
            if byte(at: position) == UInt8(ascii: "+") || byte(at: position) == UInt8(ascii: "-") { position += 1 }
            guard Self.isDigit(byte(at: position)) else {
                throw error(.invalidNumber, "exponent has no digits", at: start)
            }
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        }
        if Self.isIdentifierStart(byte(at: position)) {
            throw error(.invalidNumber, "malformed number literal", at: start)
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if !isFloating, let value = UInt64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else {
            throw error(.invalidNumber, "number literal is out of range", at: start)
        }
        return .double(value)
    }

    private static func digitValue(_ b: UInt8) -> UInt64? {
        switch b {
        case 0x30...0x39: UInt64(b - 0x30)
        case 0x61...0x66: UInt64(b - 0x61 + 10)
        case 0x41...0x46: UInt64(b - 0x41 + 10)
        default: nil
        }
    }

    private mutating func string(quote: UInt8) throws -> String {
        let start = position
        position += 1
        let contentStart = position
        while position < bytes.count, bytes[position] != quote, bytes[position] != UInt8(ascii: "\\") { position += 1 }
        if position < bytes.count, bytes[position] == quote {
            position += 1
            return String(decoding: bytes[contentStart..<(position - 1)], as: UTF8.self)
        }
        var result = Array(bytes[contentStart..<position])
        while position < bytes.count {
            let b = bytes[position]
            if b == quote {
                position += 1
                return String(decoding: result, as: UTF8.self)
            }
            if b != UInt8(ascii: "\\") {
                result.append(b)
                position += 1
                continue
            }
            let escapeStart = position
            position += 1
            guard position < bytes.count else { break }
            let e = bytes[position]
            position += 1
            switch e {
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "0"): result.append(0x00)
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): result.append(e)
            case UInt8(ascii: "u"):
                let scalar = try unicodeEscape(escapeStart: escapeStart)
                result.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw error(.invalidEscape, "unknown escape sequence in string literal", at: escapeStart)
            }
        }
        throw error(.unterminatedString, "string literal has no closing quote", at: start)
    }

    /// Reads the hex digits after `\u` (4 digits, or `{1-8}`), combining UTF-16 surrogate pairs.
    private mutating func unicodeEscape(escapeStart: Int) throws -> Unicode.Scalar {
        func hex(count: Int) throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let digit = Self.digitValue(byte(at: position)) else {
                    throw error(.invalidEscape, "\\u needs four hexadecimal digits", at: escapeStart)
                }
                value = value * 16 + UInt32(digit)
                position += 1
            }
            return value
        }
        var code: UInt32
        if byte(at: position) == UInt8(ascii: "{") {
            position += 1
            code = 0
            var digits = 0
            while let digit = Self.digitValue(byte(at: position)), digits < 8 {
                code = code &* 16 &+ UInt32(digit)
                digits += 1
                position += 1
            }
            guard digits > 0, byte(at: position) == UInt8(ascii: "}") else {
                throw error(.invalidEscape, "malformed \\u{…} escape", at: escapeStart)
            }
            position += 1
        } else {
            code = try hex(count: 4)
            if code >= 0xD800, code < 0xDC00, byte(at: position) == UInt8(ascii: "\\"),
                byte(at: position + 1) == UInt8(ascii: "u")
            {
                position += 2
                let low = try hex(count: 4)
                guard low >= 0xDC00, low < 0xE000 else {
                    throw error(.invalidEscape, "unpaired UTF-16 surrogate in \\u escape", at: escapeStart)
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
        }
        guard let scalar = Unicode.Scalar(code) else {
            throw error(.invalidEscape, "\\u escape is not a Unicode scalar value", at: escapeStart)
        }
        return scalar
    }

    private mutating func formatSpecifier() throws -> Token.Kind {
        let start = position
        position += 1
        let specStart = position
        while position < bytes.count, bytes[position] == UInt8(ascii: "l") || bytes[position] == UInt8(ascii: "h") {
            position += 1
        }
        guard position < bytes.count else {
            throw error(.unsupportedFormatSpecifier, "'%' at the end of the format", at: start)
        }
        let conversion = bytes[position]
        position += 1
        let lengthModifiers = position - specStart - 1
        if conversion == UInt8(ascii: "%"), lengthModifiers == 0 { return .symbol(.modulus) }
        switch conversion {
        case UInt8(ascii: "@") where lengthModifiers == 0:
            do {
                return value(try PredicateValue(argument: try takeArgument(at: start)))
            } catch var failure as ObjectPredicateError {
                failure.offset = failure.offset ?? start
                throw failure
            }
        case UInt8(ascii: "K") where lengthModifiers == 0:
            let argument = try takeArgument(at: start)
            guard let path = argument.flatMap({ ValueSemantics.string($0) }), !path.isEmpty else {
                throw error(.unsupportedArgument, "%K needs a non-empty key path string", at: start)
            }
            return .argumentKeyPath(path)
        case UInt8(ascii: "d"), UInt8(ascii: "i"), UInt8(ascii: "u"):
            let argument = try takeArgument(at: start)
            guard let number = argument.flatMap({ NumericValue($0) }) else {
                throw error(.unsupportedArgument, "%d needs an integer argument", at: start)
            }
            switch number {
            case .int(let v): return self.value(.integer(v))
            case .double(let v):
                guard let exact = Int64(exactly: v) else {
                    throw error(.unsupportedArgument, "%d needs an integer argument", at: start)
                }
                return self.value(.integer(exact))
            case .decimal(let v): return self.value(.decimal(v))
            }
        case UInt8(ascii: "f"):
            let argument = try takeArgument(at: start)
            guard let number = argument.flatMap({ NumericValue($0) }) else {
                throw error(.unsupportedArgument, "%f needs a numeric argument", at: start)
            }
            return self.value(.double(number.doubleValue))
        case UInt8(ascii: "s") where lengthModifiers == 0:
            let argument = try takeArgument(at: start)
            guard let string = argument.flatMap({ ValueSemantics.string($0) }) else {
                throw error(.unsupportedArgument, "%s needs a string argument", at: start)
            }
            return self.value(.string(string))
        default:
            throw error(
                .unsupportedFormatSpecifier,
                "unsupported format specifier; use %@ %K %d %i %u %ld %lld %f %lf %s or %%", at: start)
        }
    }

    private mutating func value(_ value: PredicateValue) -> Token.Kind {
        argumentValues.append(value)
        return .argumentValue(argumentValues.count - 1)
    }

    private mutating func takeArgument(at offset: Int) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw error(
                .missingArgument, "format specifier #\(argumentIndex + 1) has no argument", at: offset)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }
}
