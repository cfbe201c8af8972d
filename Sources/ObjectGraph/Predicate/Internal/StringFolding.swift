import Foundation

/// Case and diacritic folding for `[c]`, `[d]` and `[cd]`.
///
/// The one implementation: the SQLite store folds with it too (adding NFC normalization for its byte comparisons),
/// so a predicate selects the same objects in memory and in SQL.
package enum StringFolding {
    /// Folds `string`: `[c]` applies full Unicode case folding (upper-casing then lower-casing,
    /// so `ß` and `SS` meet), `[d]` decomposes canonically and drops combining marks.
    static func fold(_ string: String, _ options: ComparisonOptions) -> String {
        fold(
            string, caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// Folds `string` for the given options (see ``fold(_:_:)``); ASCII text takes a short path.
    package static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard caseInsensitive || diacriticInsensitive else { return string }
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
        return result
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
