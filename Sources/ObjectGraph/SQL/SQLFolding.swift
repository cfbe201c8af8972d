import Foundation

/// The framework's `[c]`/`[d]` folding (`StringFolding`, shared with `package` access), followed by NFC
/// normalization.
///
/// The NFC step makes a byte comparison of two folded strings equal to Swift's `==` on them.
package enum SQLFolding {
    package static func fold(_ string: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false)
        -> String
    {
        SQLValueCoding.normalized(
            StringFolding.fold(
                string, caseInsensitive: caseInsensitive,
                diacriticInsensitive: diacriticInsensitive))
    }
}
