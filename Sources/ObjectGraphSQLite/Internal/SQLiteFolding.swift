import Foundation
import ObjectGraph

/// The framework's `[c]`/`[d]` folding (`StringFolding`, shared with `package` access), followed by NFC
/// normalization.
///
/// The NFC step makes a byte comparison of two folded strings equal to Swift's `==` on them.
enum SQLiteFolding {
    static func fold(_ string: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> String {
        ValueCoding.normalized(
            StringFolding.fold(
                string, caseInsensitive: caseInsensitive,
                diacriticInsensitive: diacriticInsensitive))
    }
}
