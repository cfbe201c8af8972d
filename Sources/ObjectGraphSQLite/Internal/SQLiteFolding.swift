import Foundation

/// Case and diacritic folding identical to the framework's `[c]`/`[d]` folding, followed by NFC normalization.
///
/// `[c]` upper-cases then lower-cases (so `ß` meets `SS`); `[d]` decomposes canonically and drops combining marks.
/// The NFC step makes a byte comparison of two folded strings equal to Swift's `==` on them.
enum SQLiteFolding {
    static func fold(_ string: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> String {
        guard caseInsensitive || diacriticInsensitive else { return ValueCoding.normalized(string) }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            guard caseInsensitive, string.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return string }
            return string.lowercased()
        }
        var result = string
        if caseInsensitive { result = result.uppercased().lowercased() }
        if diacriticInsensitive {
            let decomposed = result.decomposedStringWithCanonicalMapping
            var scalars = String.UnicodeScalarView()
            for scalar in decomposed.unicodeScalars where !isCombiningMark(scalar) { scalars.append(scalar) }
            result = String(scalars)
        }
        return ValueCoding.normalized(result)
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
