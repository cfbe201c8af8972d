import Foundation

/// Compiles `MATCHES` patterns once and shares them; patterns are anchored to match the whole string.
///
/// The anchoring rule (``wholeStringPattern(_:)``) is shared with `package` access: the SQLite store's `regexp()`
/// anchors the same way, so `MATCHES` selects the same objects in memory and in SQL.
package enum RegexCache {
    private struct Key: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    /// `NSRegularExpression` is immutable once built and documented as thread-safe. A refused pattern is kept too:
    /// Foundation leaks a little memory for some invalid patterns each time it is asked to compile them, so a
    /// client repeating one must not grow the process.
    private enum Entry: @unchecked Sendable {
        case compiled(NSRegularExpression)
        case refused
    }

    private static let cache = LockedValue<[Key: Entry]>([:])
    private static let capacity = 512

    /// The compiled whole-string regular expression for `pattern`.
    /// - Throws: ``ObjectPredicateError/Code/invalidRegularExpression``.
    static func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
        let refusal = ObjectPredicateError(.invalidRegularExpression, "MATCHES pattern is not a valid regular expression")
        switch cache.withLock({ $0[key] }) {
        case .compiled(let regex): return regex
        case .refused: throw refusal
        case nil: break
        }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        let anchored = wholeStringPattern(pattern)
        let entry: Entry
        if (try? NSRegularExpression(pattern: pattern, options: options)) != nil,
            let regex = try? NSRegularExpression(pattern: anchored, options: options)
        {
            entry = .compiled(regex)
        } else {
            entry = .refused
        }
        cache.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
        guard case .compiled(let regex) = entry else { throw refusal }
        return regex
    }

    /// True when `string` as a whole matches `regex`.
    static func wholeMatch(_ regex: NSRegularExpression, _ string: String) -> Bool {
        let range = NSRange(location: 0, length: string.utf16.count)
        return regex.firstMatch(in: string, options: [.anchored], range: range) != nil
    }

    /// `pattern` anchored to match a whole string, like `NSPredicate`'s MATCHES: alternatives stay inside the
    /// group, and a `\Q…` quote left open is closed first (it would otherwise quote the anchor too).
    package static func wholeStringPattern(_ pattern: String) -> String {
        "(?:" + pattern + (hasOpenQuote(pattern) ? "\\E" : "") + ")\\z"
    }

    /// True when the pattern ends inside a `\Q…` quote that has no closing `\E`.
    private static func hasOpenQuote(_ pattern: String) -> Bool {
        var quoting = false
        var iterator = pattern.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\\", let next = iterator.next() else { continue }
            if next == "Q" { quoting = true } else if next == "E" { quoting = false }
        }
        return quoting
    }
}
