import Foundation

/// How predicates and aggregates order strings: by the scalars of their canonical composition (NFC), the order of
/// the sorts (``SortValue/string(_:)``) and of the SQLite store (it keeps strings in NFC and compares their bytes).
///
/// Swift's `<` is that order on composed strings, but on this toolchain (Swift 6.3, Linux) no strict weak order on
/// others: `"e\u{301}" < "\u{E9}a"` and `"\u{E9}a" < "e\u{301}"` are both false, so `title < 'éa'` missed a title
/// spelled with a combining accent. Equality needs nothing: Swift's `==` is canonical equivalence.
enum StringOrder {
    /// Whether a string is in canonical composition, known without composing it: only scalars of
    /// ``OrderRange/composesWithNothing(_:)`` (ASCII and Latin below the combining marks among them). False says
    /// nothing.
    ///
    /// Read from the UTF-8 bytes, where every scalar below U+0300 is a byte below 0xCC (ASCII, a lead byte up to
    /// 0xCB, or a continuation byte), so most titles take one pass over their bytes; other scalars are decoded
    /// there. Predicates compare strings they did not prepare, so every comparison pays the check: a comparison
    /// with a constant of 100k titles took about 180 instructions each for ASCII titles (Swift's `<` alone 46),
    /// 550 for German (325), 800 for Greek (295) (callgrind); checked through `unicodeScalars`, 500, 2,100 and
    /// 1,340.
    static func isComposedAtOnce(_ string: String) -> Bool {
        let known = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            if bytes.allSatisfy({ $0 < 0xCC }) { return true }
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                if lead < 0xCC {
                    index += 1
                    continue
                }
                // A lead byte (the string is valid UTF-8, so its continuation bytes follow).
                let scalar: UInt32
                if lead < 0xE0 {
                    scalar = UInt32(lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
                    index += 2
                } else if lead < 0xF0 {
                    scalar =
                        UInt32(lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                        | UInt32(bytes[index + 2] & 0x3F)
                    index += 3
                } else {
                    scalar =
                        UInt32(lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12
                        | UInt32(bytes[index + 2] & 0x3F) << 6 | UInt32(bytes[index + 3] & 0x3F)
                    index += 4
                }
                if !OrderRange.composesWithNothing(scalar) { return false }
            }
            return true
        }
        return known ?? string.unicodeScalars.allSatisfy { OrderRange.composesWithNothing($0.value) }
    }

    /// The string in canonical composition: itself when it is known composed at once, else composed through
    /// Foundation (a few microseconds).
    @inline(__always)
    static func composed(_ string: String) -> String {
        isComposedAtOnce(string) ? string : string.precomposedStringWithCanonicalMapping
    }

    /// The order of two strings.
    static func order(_ a: String, _ b: String) -> ComparisonResult {
        ValueSemantics.order(composed(a), composed(b))
    }

    /// `value OP constant` for `<`, `<=`, `>` and `>=`, with the constant composed once; `nil` for other operators.
    static func test(_ op: ComparisonOperator, _ constant: String) -> ((String) -> Bool)? {
        let bound = composed(constant)
        return switch op {
        case .lessThan: { composed($0) < bound }
        case .lessThanOrEqualTo: { composed($0) <= bound }
        case .greaterThan: { composed($0) > bound }
        case .greaterThanOrEqualTo: { composed($0) >= bound }
        default: nil
        }
    }
}
