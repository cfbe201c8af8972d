import Foundation

/// A sort value prepared once (strings folded, numbers normalised) so comparisons are cheap.
enum SortValue {
    case null
    case number(NumericValue)
    /// A string in canonical composition (NFC), and what it was before.
    case string(String, StringForm)
    case natural([UInt32])
    case date(Date)
    case data(Data)
    case text(rank: Int, String)
    case other

    init(_ value: Any?, _ comparison: SortKey.Comparison) {
        // The common kinds first: each failed cast of an existential costs a dynamic lookup (a date used to go
        // through every numeric type and the bridging machinery before it was recognised).
        switch value {
        case nil:
            self = .null
            return
        case let date as Date:
            self = .date(date)
            return
        case let string as String where comparison == .compare:
            self = .string(string)
            return
        case let int as Int:
            self = .number(.int(Int64(int)))
            return
        case let double as Double:
            self = .number(.double(double))
            return
        default:
            break
        }
        guard let value = ValueSemantics.normalized(value) else {
            self = .null
            return
        }
        if let number = NumericValue(value) {
            self = .number(number)
        } else if let string = ValueSemantics.string(value) {
            switch comparison {
            case .compare: self = .string(string)
            case .caseInsensitive: self = .string(StringFolding.fold(string, .caseInsensitive))
            case .localizedStandard:
                self = .natural(StringFolding.fold(string, [.caseInsensitive]).unicodeScalars.map(\.value))
            }
        } else if let date = value as? Date {
            self = .date(date)
        } else if let data = value as? Data {
            self = .data(data)
        } else if let uuid = value as? UUID {
            self = .text(rank: 5, uuid.uuidString)
        } else if let url = value as? URL {
            self = .text(rank: 6, url.absoluteString)
        } else {
            self = .other
        }
    }

    /// Whether a string sort value was composed when it was prepared.
    enum StringForm {
        /// In canonical composition already.
        case composed
        /// Not in canonical composition: the value is its composition.
        case recomposed
    }

    /// A string's sort value: its canonical composition (NFC).
    ///
    /// Swift's `<` orders strings by the scalars of their composition, the SQLite store's order too (it keeps strings
    /// in NFC and sorts them by their bytes), but on strings that are not composed already it is no strict weak
    /// order on this toolchain (Swift 6.3, Linux: `"e\u{301}" < "\u{E9}a"` and `"\u{E9}a" < "e\u{301}"` are both
    /// false, though the two differ and `"\u{E9}" < "\u{E9}a"`): a sort of such strings came out misordered, and
    /// merged pages of it could repeat or skip objects. On composed strings it is their scalars' order. Most strings
    /// are known composed at once (``OrderRange/isComposed(_:)``); others are composed through Foundation.
    static func string(_ string: String) -> SortValue {
        OrderRange.isComposed(string)
            ? .string(string, .composed) : .string(string.precomposedStringWithCanonicalMapping, .recomposed)
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .number: 1
        case .string, .natural: 2
        case .date: 3
        case .data: 4
        case .text(let rank, _): rank
        case .other: 7
        }
    }

    func compare(to other: SortValue) -> ComparisonResult {
        switch (self, other) {
        case (.number(let a), .number(let b)): return NumericValue.compare(a, b) ?? .orderedSame
        case (.string(let a, _), .string(let b, _)): return ValueSemantics.order(a, b)
        case (.natural(let a), .natural(let b)): return Self.naturalOrder(a, b)
        case (.date(let a), .date(let b)): return ValueSemantics.order(a, b)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case (.text(let r1, let a), .text(let r2, let b)) where r1 == r2: return ValueSemantics.order(a, b)
        default: return ValueSemantics.order(rank, other.rank)
        }
    }

    private static func isDigit(_ c: UInt32) -> Bool { c >= 0x30 && c <= 0x39 }

    /// Compares scalar arrays, treating runs of ASCII digits as numbers ("2" < "10"); on numeric ties
    /// the run with fewer leading zeros comes first only if everything else is equal.
    static func naturalOrder(_ a: [UInt32], _ b: [UInt32]) -> ComparisonResult {
        var i = 0
        var j = 0
        var zeroTie = ComparisonResult.orderedSame
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                var si = i
                var sj = j
                while i < a.count, isDigit(a[i]) { i += 1 }
                while j < b.count, isDigit(b[j]) { j += 1 }
                let startA = si
                let startB = sj
                while si < i - 1, a[si] == 0x30 { si += 1 }
                while sj < j - 1, b[sj] == 0x30 { sj += 1 }
                let lengthA = i - si
                let lengthB = j - sj
                if lengthA != lengthB { return lengthA < lengthB ? .orderedAscending : .orderedDescending }
                var k = 0
                while k < lengthA {
                    if a[si + k] != b[sj + k] { return a[si + k] < b[sj + k] ? .orderedAscending : .orderedDescending }
                    k += 1
                }
                if zeroTie == .orderedSame, (si - startA) != (sj - startB) {
                    zeroTie = (si - startA) < (sj - startB) ? .orderedAscending : .orderedDescending
                }
                continue
            }
            if a[i] != b[j] { return a[i] < b[j] ? .orderedAscending : .orderedDescending }
            i += 1
            j += 1
        }
        if i < a.count { return .orderedDescending }
        if j < b.count { return .orderedAscending }
        return zeroTie
    }
}
