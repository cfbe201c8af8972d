/// A compiled `LIKE` pattern: `*` matches any run of characters, `?` exactly one, `\` escapes the next.
struct WildcardPattern: Sendable {
    private enum Element: Sendable, Equatable {
        case literal(Character)
        case one
        case any
    }

    private let elements: [Element]

    init(_ pattern: String) {
        var result: [Element] = []
        var escaping = false
        for character in pattern {
            if escaping {
                result.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "*" {
                if result.last != .any { result.append(.any) }
            } else if character == "?" {
                result.append(.one)
            } else {
                result.append(.literal(character))
            }
        }
        if escaping { result.append(.literal("\\")) }
        elements = result
    }

    /// Matches the whole string in O(n·m) time at worst (no exponential backtracking).
    func matches(_ string: String) -> Bool {
        let text = Array(string)
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < text.count {
            if p < elements.count {
                switch elements[p] {
                case .one:
                    t += 1
                    p += 1
                    continue
                case .literal(let c) where c == text[t]:
                    t += 1
                    p += 1
                    continue
                case .any:
                    starP = p
                    starT = t
                    p += 1
                    continue
                default: break
                }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < elements.count, elements[p] == .any { p += 1 }
        return p == elements.count
    }
}
