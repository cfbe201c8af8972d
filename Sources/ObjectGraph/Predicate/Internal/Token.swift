/// A lexical token of the predicate format language.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        /// A key or function name (function names may contain colons, `add:to:`).
        case identifier(String)
        /// `#word`: a reserved word used as a key.
        case escapedIdentifier(String)
        case keyword(Keyword)
        case string(String)
        /// An integer literal's magnitude (the sign is a separate `-`).
        case integer(UInt64)
        case double(Double)
        /// `$name`
        case variable(String)
        /// `@count`, `@sum`, … (any `@word`; validated by the parser).
        case collectionOperator(String)
        /// A value substituted for `%@`, `%d`, `%f`, `%s`: an index into ``Lexer/argumentValues``.
        case argumentValue(Int)
        /// A key path substituted for `%K`.
        case argumentKeyPath(String)
        case symbol(Symbol)
        case end
    }

    var kind: Kind
    /// UTF-8 byte offset of the token's first byte.
    var offset: Int
    /// The symbol, if the token is one (checked often, so kept outside the enum).
    let symbol: Symbol?
    /// The keyword, if the token is one.
    let keyword: Keyword?

    init(kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
        if case .symbol(let symbol) = kind { self.symbol = symbol } else { self.symbol = nil }
        if case .keyword(let keyword) = kind { self.keyword = keyword } else { self.keyword = nil }
    }
}

/// Punctuation and operator symbols.
enum Symbol: String, Sendable {
    case leftParen = "(", rightParen = ")", leftBrace = "{", rightBrace = "}"
    case leftBracket = "[", rightBracket = "]", comma = ",", dot = "."
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case plus = "+", minus = "-", star = "*", slash = "/", power = "**", modulus = "%%"
    case bang = "!", ampersands = "&&", pipes = "||"
}

/// Reserved words, matched case-insensitively.
enum Keyword: String, Sendable, CaseIterable {
    case and = "AND", or = "OR", not = "NOT", `in` = "IN", all = "ALL", any = "ANY", some = "SOME"
    case none = "NONE", like = "LIKE", matches = "MATCHES", contains = "CONTAINS"
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", between = "BETWEEN"
    case null = "NULL", `nil` = "NIL", `self` = "SELF", `true` = "TRUE", yes = "YES", `false` = "FALSE"
    case no = "NO", first = "FIRST", last = "LAST", size = "SIZE", subquery = "SUBQUERY", cast = "CAST"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE", function = "FUNCTION"
    case anyKey = "ANYKEY", fetch = "FETCH"

    /// Keywords by first letter, each with its upper-case spelling packed into two integers.
    private static let table: [[(UInt64, UInt64, Keyword)]] = {
        var table = Array(repeating: [(UInt64, UInt64, Keyword)](), count: 26)
        for keyword in allCases {
            let bytes = Array(keyword.rawValue.utf8)
            let (a, b) = pack(bytes[...])
            table[Int(bytes[0] - 0x41)].append((a, b, keyword))
        }
        return table
    }()

    /// Packs up to 16 upper-cased ASCII letters (0 when a byte is not a letter).
    @inline(__always)
    private static func pack(_ bytes: some Collection<UInt8>) -> (UInt64, UInt64) {
        var a: UInt64 = 0
        var b: UInt64 = 0
        var shift: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            let upper = byte & 0xDF
            guard upper >= 0x41, upper <= 0x5A else { return (0, 0) }
            if i < 8 { a |= UInt64(upper) << shift } else { b |= UInt64(upper) << (shift - 64) }
            shift += 8
        }
        return (a, b)
    }

    /// The keyword spelled by `bytes` in any case, or nil: the lexer's bytes.
    static func match(_ bytes: ArraySlice<UInt8>) -> Keyword? { match(bytes: bytes) }

    /// The keyword spelled by a key path's component in any case, or nil (the printer's).
    static func match(_ bytes: Substring.UTF8View) -> Keyword? { match(bytes: bytes) }

    /// One body for both, inlined into each so that it is compiled for its type (a generic call here made the
    /// lexer a third slower: the predicate parse rate row).
    @inline(__always)
    private static func match(bytes: some Collection<UInt8>) -> Keyword? {
        guard bytes.count >= 2, bytes.count <= 14 else { return nil }
        let first = bytes[bytes.startIndex] & 0xDF
        guard first >= 0x41, first <= 0x5A else { return nil }
        let candidates = table[Int(first - 0x41)]
        if candidates.isEmpty { return nil }
        let (a, b) = pack(bytes)
        if a == 0 { return nil }
        for candidate in candidates where candidate.0 == a && candidate.1 == b { return candidate.2 }
        return nil
    }

    /// True when `word` (any case) is reserved, so printing must escape it as `#word`.
    static func isReserved(_ word: String) -> Bool { match(ArraySlice(word.utf8)) != nil }
}
