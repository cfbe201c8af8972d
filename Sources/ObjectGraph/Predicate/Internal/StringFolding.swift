import Foundation

/// Case and diacritic folding for `[c]`, `[d]` and `[cd]`.
enum StringFolding {
    /// Folds `string`: `[c]` applies full Unicode case folding (upper-casing then lower-casing,
    /// so `ß` and `SS` meet), `[d]` decomposes canonically and drops combining marks.
    static func fold(_ string: String, _ options: ComparisonOptions) -> String {
        let caseless = options.contains(.caseInsensitive)
        let diacriticless = options.contains(.diacriticInsensitive)
        guard caseless || diacriticless else { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            guard caseless, string.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return string }
            return string.lowercased()
        }
        var result = string
        if caseless { result = result.uppercased().lowercased() }
        if diacriticless {
            let decomposed = result.decomposedStringWithCanonicalMapping
            var scalars = String.UnicodeScalarView()
            for scalar in decomposed.unicodeScalars where !isCombiningMark(scalar) { scalars.append(scalar) }
            result = String(scalars)
        }
        return result
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
