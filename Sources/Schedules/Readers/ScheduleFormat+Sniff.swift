import Foundation
import SafeXML

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
    ///
    /// Each schedule store class answers for its format (``ScheduleFileStore/canOpen(prefix:)``): this asks them.
    public static func sniff(_ data: Data) -> ScheduleFormat? {
        // The store classes' check, so that a file the daemon's sniffer attaches reads with the same reader.
        ScheduleFileStore.storeClasses.first { $0.canOpen(prefix: data) }?.format
    }

    /// Whether data starts like a file of this format (the check behind ``sniff(_:)`` and each schedule store
    /// class's ``ScheduleFileStore/canOpen(prefix:)``).
    func isStart(of data: Data) -> Bool {
        switch self {
        // The root element, past a BOM, white space, the declaration, comments and a DOCTYPE.
        case .frabXML: return XMLRootSniffer.rootElementName(in: data) == "schedule"
        case .frabJSON, .iCalendar:
            return data.withUnsafeBytes { raw -> Bool in
                let bytes = raw.bindMemory(to: UInt8.self)
                var index = 0
                if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
                Self.skipWhiteSpace(bytes, &index)
                guard index < bytes.count else { return false }
                if self == .frabJSON {
                    return bytes[index] == UInt8(ascii: "{")
                        && JSONShape.hasTopLevelKey("schedule", in: bytes, from: index)
                }
                return Self.hasPrefix(bytes, at: index, "BEGIN:VCALENDAR", caseInsensitive: true)
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
}
