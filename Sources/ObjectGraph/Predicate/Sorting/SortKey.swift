import Foundation

/// One key of a sort order: a key path, a direction and a string comparison mode.
///
/// Values order as: nil first (when ascending), then numbers (integers, doubles, decimals and Booleans
/// compare with each other), strings, dates, data, UUIDs, URLs; values of different kinds order by that
/// rank so the order is total.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare.
    public enum Comparison: Sendable, Hashable {
        /// Unicode scalar order of the strings' canonical composition (NFC), case-sensitive (`"B" < "a"`): the order
        /// Swift's `String` defines, and the SQLite store's. A decomposed `"e\u{301}"` sorts as `"é"` does.
        case compare
        /// Case-insensitive, via Unicode case folding.
        case caseInsensitive
        /// Case-insensitive with numbers inside strings compared numerically (`"Room 2" < "Room 10"`),
        /// approximating Finder-style `localizedStandardCompare`.
        case localizedStandard
    }

    /// The key path whose values are compared.
    public let keyPath: String
    /// True for smallest first.
    public let ascending: Bool
    /// The string comparison mode.
    public let comparison: Comparison
    private let compiledPath: CompiledKeyPath

    /// Creates a sort key.
    /// - Parameters:
    ///   - keyPath: A key path such as `name` or `address.city` (collection operators allowed).
    ///   - ascending: True for smallest first (nil first).
    ///   - comparison: How strings compare.
    public init(_ keyPath: String, ascending: Bool = true, comparison: SortKey.Comparison = .compare) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
        self.compiledPath = CompiledKeyPath(keyPath)
    }

    /// `keyPath ASC` or `keyPath DESC`, with the comparison mode when not `.compare`.
    public var description: String {
        keyPath + (ascending ? " ASC" : " DESC") + (comparison == .compare ? "" : " (\(comparison))")
    }

    /// The value this key sorts by, read from `object`.
    /// - Throws: ``ObjectPredicateError/Code/unknownKey`` and other key path errors.
    public func value(of object: Any?) throws -> Any? { try compiledPath.value(of: object) }

    /// Orders two already-extracted values, honouring ``ascending`` and ``comparison``.
    public func compare(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        let order = SortValue(lhs, comparison).compare(to: SortValue(rhs, comparison))
        return ascending ? order : order.reversed
    }

    /// Orders two objects by the values at ``keyPath``.
    /// - Throws: Key path errors.
    public func compareObjects(_ a: Any?, _ b: Any?) throws -> ComparisonResult {
        compare(try value(of: a), try value(of: b))
    }

    /// Sorts `items` by `keys`, stably; `value` extracts one key's value from one item and is called
    /// exactly once per item and key (values are prepared before sorting).
    /// - Complexity: O(n·k) extractions plus O(n log n · k) cheap comparisons.
    public static func sort<T>(_ items: [T], by keys: [SortKey], value: (T, SortKey) throws -> Any?) rethrows -> [T] {
        guard !keys.isEmpty, items.count > 1 else { return items }
        return try sortedPositions(items, by: keys, value: value).positions.map { items[$0] }
    }

    /// The positions of `items` in the order of `keys` (stable), with each item's prepared sort values
    /// (`keys.count` per item, in the items' own order): the work of ``sort(_:by:value:)``, for callers that keep
    /// the values to compare again later.
    static func sortedPositions<T>(_ items: [T], by keys: [SortKey], value: (T, SortKey) throws -> Any?) rethrows
        -> (positions: [Int], prepared: [SortValue])
    {
        let width = keys.count
        var prepared: [SortValue] = []
        prepared.reserveCapacity(items.count * width)
        for item in items {
            for key in keys { prepared.append(SortValue(try value(item, key), key.comparison)) }
        }
        var order = Array(items.indices)
        order.sort { i, j in
            for k in 0..<width {
                let result = prepared[i * width + k].compare(to: prepared[j * width + k])
                if result != .orderedSame {
                    return keys[k].ascending ? result == .orderedAscending : result == .orderedDescending
                }
            }
            return i < j
        }
        return (order, prepared)
    }

    /// Sorts `items` by reading each key's key path from each item; see ``sort(_:by:value:)``.
    /// - Throws: Key path errors.
    public static func sort<T>(_ items: [T], by keys: [SortKey]) throws -> [T] {
        try sort(items, by: keys) { item, key in try key.value(of: item) }
    }
}

extension ComparisonResult {
    /// The opposite order.
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
