/// One unfolded iCalendar content line: `NAME;PARAM=value,"quoted":VALUE`.
struct ContentLine: Sendable {
    /// The property name, uppercased.
    var name: String
    /// Parameters by uppercased name, each with its values (quotes removed).
    var parameters: [String: [String]]
    /// The raw value (still escaped for TEXT properties).
    var value: String
    /// The 1-based physical line the content line starts on.
    var line: Int

    /// The first value of a parameter.
    func parameter(_ name: String) -> String? { parameters[name]?.first }
}

/// Splits iCalendar bytes into content lines.
///
/// Unfolding happens on bytes, before UTF-8 decoding, because a fold may split a multi-byte character:
/// a line end (CRLF or LF) followed by one space or tab is removed.
struct ICalendarLexer {
    private let bytes: [UInt8]
    private(set) var sawInvalidUTF8 = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The content lines; blank lines are skipped, lines without a colon are reported by line number.
    mutating func contentLines(malformed: (Int) -> Void) -> [ContentLine] {
        var lines: [ContentLine] = []
        var logical: [UInt8] = []
        logical.reserveCapacity(256)
        var physicalLine = 1
        var logicalStartLine = 1
        var index = 0
        let count = bytes.count
        while index < count {
            // Read one physical line.
            var end = index
            while end < count && bytes[end] != 10 { end += 1 }
            var contentEnd = end
            if contentEnd > index && bytes[contentEnd - 1] == 13 { contentEnd -= 1 }
            let isContinuation = index < count && (bytes[index] == 32 || bytes[index] == 9) && index != 0
            if isContinuation && !logical.isEmpty {
                logical.append(contentsOf: bytes[(index + 1)..<max(index + 1, contentEnd)])
            } else {
                if !logical.isEmpty {
                    if let line = parse(logical, line: logicalStartLine) {
                        lines.append(line)
                    } else {
                        malformed(logicalStartLine)
                    }
                }
                logical.removeAll(keepingCapacity: true)
                logical.append(contentsOf: bytes[index..<contentEnd])
                logicalStartLine = physicalLine
            }
            physicalLine += 1
            index = end + 1
        }
        if !logical.isEmpty {
            if let line = parse(logical, line: logicalStartLine) {
                lines.append(line)
            } else {
                malformed(logicalStartLine)
            }
        }
        return lines
    }

    private mutating func decode(_ slice: ArraySlice<UInt8>) -> String {
        if let text = String(validating: slice, as: UTF8.self) { return text }
        sawInvalidUTF8 = true
        return String(decoding: slice, as: UTF8.self)
    }

    private mutating func parse(_ bytes: [UInt8], line: Int) -> ContentLine? {
        // Skip lines that are only white space.
        guard bytes.contains(where: { $0 != 32 && $0 != 9 }) else { return nil }
        var index = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: ";"), bytes[index] != UInt8(ascii: ":") { index += 1 }
        guard index < bytes.count, index > 0 else { return nil }
        let name = decode(bytes[0..<index]).trimmingSpaces.uppercased()
        var parameters: [String: [String]] = [:]
        while index < bytes.count, bytes[index] == UInt8(ascii: ";") {
            index += 1
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ":"),
                bytes[index] != UInt8(ascii: ";")
            {
                index += 1
            }
            let parameterName = decode(bytes[nameStart..<index]).trimmingSpaces.uppercased()
            var values: [String] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while true {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        let start = index + 1
                        index = start
                        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += 1 }
                        guard index < bytes.count else { return nil }
                        values.append(decode(bytes[start..<index]))
                        index += 1
                    } else {
                        let start = index
                        while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: ";"),
                            bytes[index] != UInt8(ascii: ":")
                        {
                            index += 1
                        }
                        values.append(decode(bytes[start..<index]))
                    }
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 } else { break }
                }
            }
            if !parameterName.isEmpty { parameters[parameterName, default: []].append(contentsOf: values) }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        let value = decode(bytes[(index + 1)...])
        return ContentLine(name: name, parameters: parameters, value: value, line: line)
    }
}

extension StringProtocol {
    /// The string without surrounding spaces and tabs.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
