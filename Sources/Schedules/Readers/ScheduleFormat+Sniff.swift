import Foundation

extension ScheduleFormat {
    /// Recognises the format by content, never by file name.
    ///
    /// - XML whose root element is `<schedule>` (after a UTF-8 BOM, white space, the XML declaration,
    ///   comments, processing instructions and a DOCTYPE) is ``frabXML``.
    /// - A JSON object with a top-level `"schedule"` key is ``frabJSON``.
    /// - Text starting with `BEGIN:VCALENDAR` (case-insensitive, after a BOM and white space) is ``iCalendar``.
    ///
    /// Looks at no more than the first 64 KiB for XML and iCalendar; for JSON scans top-level keys until
    /// `"schedule"` is found. Complexity: O(n) in the bytes inspected.
    public static func sniff(_ data: Data) -> ScheduleFormat? {
        data.withUnsafeBytes { raw -> ScheduleFormat? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            skipWhiteSpace(bytes, &index)
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "<"): return isFrabXML(bytes, from: index) ? .frabXML : nil
            case UInt8(ascii: "{"):
                return JSONShape.hasTopLevelKey("schedule", in: bytes, from: index) ? .frabJSON : nil
            default: return hasPrefix(bytes, at: index, "BEGIN:VCALENDAR", caseInsensitive: true) ? .iCalendar : nil
            }
        }
    }

    private static func skipWhiteSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 || bytes[index] == 10 || bytes[index] == 13 {
            index += 1
        }
    }

    private static func hasPrefix(
        _ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ prefix: String, caseInsensitive: Bool = false
    ) -> Bool {
        var position = index
        for expected in prefix.utf8 {
            guard position < bytes.count else { return false }
            let actual = bytes[position]
            let matches =
                caseInsensitive
                ? (actual | 0x20) == (expected | 0x20) && isLetterOrSame(actual, expected)
                : actual == expected
            guard matches else { return false }
            position += 1
        }
        return true
    }

    private static func isLetterOrSame(_ actual: UInt8, _ expected: UInt8) -> Bool {
        actual == expected || (expected | 0x20 >= UInt8(ascii: "a") && expected | 0x20 <= UInt8(ascii: "z"))
    }

    private static func isFrabXML(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var index = start
        let limit = min(bytes.count, start + 65_536)
        while index < limit {
            skipWhiteSpace(bytes, &index)
            guard index < limit, bytes[index] == UInt8(ascii: "<") else { return false }
            if hasPrefix(bytes, at: index, "<?") {
                guard let end = find(bytes, "?>", from: index + 2, limit: limit) else { return false }
                index = end + 2
            } else if hasPrefix(bytes, at: index, "<!--") {
                guard let end = find(bytes, "-->", from: index + 4, limit: limit) else { return false }
                index = end + 3
            } else if hasPrefix(bytes, at: index, "<!") {
                guard var end = find(bytes, ">", from: index + 2, limit: limit) else { return false }
                // A DOCTYPE with an internal subset (`[ … ]`) ends at the `>` after its closing bracket; the parser,
                // not the sniffer, decides what to do with the declarations inside.
                if let open = find(bytes, "[", from: index + 2, limit: limit), open < end {
                    guard let close = find(bytes, "]", from: open + 1, limit: limit),
                        let after = find(bytes, ">", from: close + 1, limit: limit)
                    else { return false }
                    end = after
                }
                index = end + 1
            } else {
                guard hasPrefix(bytes, at: index, "<schedule") else { return false }
                let after = index + 9
                guard after < bytes.count else { return false }
                let next = bytes[after]
                return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 32 || next == 9 || next == 10
                    || next == 13
            }
        }
        return false
    }

    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: String, from: Int, limit: Int) -> Int? {
        let pattern = Array(needle.utf8)
        var index = from
        while index + pattern.count <= limit {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<max(1, pattern.count) where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
