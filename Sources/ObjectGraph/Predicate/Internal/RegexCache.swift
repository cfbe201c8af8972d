import Foundation
import Synchronization

/// Compiles `MATCHES` patterns once and shares them; patterns are anchored to match the whole string.
enum RegexCache {
    private struct Key: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    /// `NSRegularExpression` is immutable once built and documented as thread-safe.
    private struct Entry: @unchecked Sendable {
        let regex: NSRegularExpression
    }

    private static let cache = Mutex<[Key: Entry]>([:])
    private static let capacity = 512

    /// The compiled whole-string regular expression for `pattern`.
    /// - Throws: ``ObjectPredicateError/Code/invalidRegularExpression``.
    static func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
        if let entry = cache.withLock({ $0[key] }) { return entry.regex }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        do {
            _ = try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            throw ObjectPredicateError(.invalidRegularExpression, "MATCHES pattern is not a valid regular expression")
        }
        let anchored = "(?:" + pattern + (hasOpenQuote(pattern) ? "\\E" : "") + ")\\z"
        guard let regex = try? NSRegularExpression(pattern: anchored, options: options) else {
            throw ObjectPredicateError(.invalidRegularExpression, "MATCHES pattern is not a valid regular expression")
        }
        cache.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(regex: regex)
        }
        return regex
    }

    /// True when `string` as a whole matches `regex`.
    static func wholeMatch(_ regex: NSRegularExpression, _ string: String) -> Bool {
        let range = NSRange(location: 0, length: string.utf16.count)
        return regex.firstMatch(in: string, options: [.anchored], range: range) != nil
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
