import Foundation

/// The identity of a conference as earlier versions named it (see ``ConferenceInfo/name`` for today's name).
///
/// The string form is `kind:value`, where kind is `acronym` (the conference acronym), `calendar`
/// (the iCalendar `X-WR-CALNAME`) or `file` (the source's last path component without its extension).
/// Values are trimmed of surrounding white space and otherwise kept as written.
public struct ConferenceIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What the identity was derived from.
    public enum Kind: String, Sendable, Hashable {
        /// The conference acronym.
        case acronym
        /// The iCalendar calendar name (`X-WR-CALNAME`).
        case calendar
        /// The source file name without extension.
        case file
    }

    /// What the identity was derived from.
    public var kind: Kind
    /// The identifying value.
    public var value: String

    /// Creates an identity from an explicit kind and value.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// Derives an identity by the documented precedence: acronym, else calendar name, else file name.
    public init(acronym: String?, calendarName: String?, source: String) {
        if let acronym = acronym?.trimmedNonEmpty {
            self.init(kind: .acronym, value: acronym)
        } else if let name = calendarName?.trimmedNonEmpty {
            self.init(kind: .calendar, value: name)
        } else {
            self.init(kind: .file, value: Self.fileStem(of: source))
        }
    }

    /// The `kind:value` form.
    public var description: String { "\(kind.rawValue):\(value)" }

    /// Orders by the string form.
    public static func < (lhs: ConferenceIdentity, rhs: ConferenceIdentity) -> Bool {
        lhs.description < rhs.description
    }

    /// A short, stable, lower-case slug of a title or file name: letters and digits (diacritics removed), every other
    /// run of characters one `-`, none at either end: `JRES 2021/22` → `jres-2021-22`, `fosdem_2021` → `fosdem-2021`.
    /// Nil when nothing is left.
    public static func slug(_ text: String) -> String? {
        let folded = text.applyingTransform(.stripDiacritics, reverse: false) ?? text
        var slug = ""
        var pendingDash = false
        for scalar in folded.lowercased().unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                if pendingDash && !slug.isEmpty { slug.append("-") }
                pendingDash = false
                slug.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return slug.isEmpty ? nil : slug
    }

    /// The last path component of a file name or URL without query and extension.
    public static func fileStem(of source: String) -> String {
        var name = Substring(source)
        if let query = name.firstIndex(where: { $0 == "?" || $0 == "#" }) { name = name[..<query] }
        while name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return String(name)
    }
}

extension String {
    /// The string without surrounding white space, or nil when nothing is left.
    /// Trims ASCII white space (space, tab, CR, LF) on the UTF-8 view: Foundation's
    /// `trimmingCharacters(in:)` bridges through NSString on Linux and dominated read profiles.
    ///
    /// Reads the bytes in place (a copy only for a string without contiguous UTF-8): `UTF8View.last` and index
    /// steps cost tens of instructions each, and every field of every session is trimmed.
    var trimmedNonEmpty: String? {
        let found = utf8.withContiguousStorageIfAvailable(Self.nonSpaceBounds) ?? Self.nonSpaceBounds(Array(utf8))
        guard let bounds = found else { return nil }
        if bounds.lowerBound == 0 && bounds.upperBound == utf8.count { return self }
        let view = utf8
        let start = view.index(view.startIndex, offsetBy: bounds.lowerBound)
        return String(self[start..<view.index(start, offsetBy: bounds.count)])
    }

    /// The offsets of the first and past the last byte that is not ASCII white space, nil when there is none.
    private static func nonSpaceBounds<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Range<Int>?
    where Bytes.Index == Int {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return start < end ? start..<end : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}
