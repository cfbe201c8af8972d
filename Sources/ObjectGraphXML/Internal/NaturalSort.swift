/// Natural ordering of names: runs of digits compare by their numeric value (`Model 2` before `Model 10`), other
/// runs case-insensitively, and a name that is a prefix of another comes first (`Model` before `Model 2`).
/// Ties are broken by plain string order, so the order is total and deterministic.
enum NaturalSort {
    /// Whether `lhs` sorts before `rhs`.
    static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        let left = runs(lhs)
        let right = runs(rhs)
        for (a, b) in zip(left, right) {
            switch (a, b) {
            case (.number(let x, let xDigits), .number(let y, let yDigits)):
                if x != y { return x.count != y.count ? x.count < y.count : x < y }
                if xDigits != yDigits { return xDigits < yDigits }
            case (.number, .text):
                return true
            case (.text, .number):
                return false
            case (.text(let x), .text(let y)):
                let foldedX = x.lowercased()
                let foldedY = y.lowercased()
                if foldedX != foldedY { return foldedX < foldedY }
            }
        }
        if left.count != right.count { return left.count < right.count }
        return lhs < rhs
    }

    private enum Run {
        /// The digits without leading zeros (so that the count orders magnitudes), and the written digit count.
        case number(String, Int)
        case text(String)
    }

    private static func runs(_ string: String) -> [Run] {
        var result: [Run] = []
        var current = ""
        var isDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if isDigits {
                let trimmed = String(current.drop { $0 == "0" })
                result.append(.number(trimmed, current.count))
            } else {
                result.append(.text(current))
            }
            current = ""
        }
        for character in string {
            let digit = character.isASCII && character.isNumber
            if digit != isDigits { flush() }
            isDigits = digit
            current.append(character)
        }
        flush()
        return result
    }
}
