/// Finds a name among a few without hashing it: a name's UTF-8 length and first two and last bytes pick one slot of
/// a small table, and a string comparison (equal small strings compare in one step) confirms it.
///
/// Used where a key is looked up per value: an object's properties by name (`value(forKey:)`, `setValue(_:forKey:)`),
/// a SQLite row writer's columns by a record's keys. Cheaper than a `Dictionary`, whose SipHash of the key costs
/// more than the comparison.
package struct KeyMatcher: Sendable {
    private static let slotCount = 512
    /// Multipliers tried in turn until the names fall into distinct slots.
    private static let seeds = [7, 13, 29, 61, 127, 251]
    private let names: [String?]
    private let table: [Int16]
    private let seed: Int

    /// A matcher for the non-nil names, by position; `nil` when two of them share a slot under every seed, or a name
    /// is empty.
    package init?(_ names: [String?]) {
        guard names.count <= Int(Int16.max) else { return nil }
        for seed in Self.seeds {
            var table = [Int16](repeating: -1, count: Self.slotCount)
            var placed = true
            for (position, name) in names.enumerated() {
                guard let name else { continue }
                guard let slot = Self.slot(of: name, seed: seed) else { return nil }
                guard table[slot] < 0 else {
                    placed = false
                    break
                }
                table[slot] = Int16(position)
            }
            if placed {
                self.names = names
                self.table = table
                self.seed = seed
                return
            }
        }
        return nil
    }

    /// The position of `key` among the names, or `nil` when it is none of them.
    @inline(__always)
    package func position(of key: String) -> Int? {
        guard let slot = Self.slot(of: key, seed: seed) else { return names.firstIndex { $0 == key } }
        let position = Int(table[slot])
        guard position >= 0, names[position] == key else { return nil }
        return position
    }

    /// The slot of a name; `nil` when its UTF-8 is not contiguous (or it is empty).
    @inline(__always)
    private static func slot(of name: String, seed: Int) -> Int? {
        name.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            let second = bytes.count > 1 ? Int(bytes[1]) : 0
            return (bytes.count &* 31 &+ Int(first) &* seed &+ second &* 5 &+ Int(last)) & (slotCount - 1)
        } ?? nil
    }
}

/// The position of each of a list of names: through a ``KeyMatcher`` when the names fit its table, else through a
/// dictionary (a name listed twice is found at its last position).
package struct NameIndex: Sendable {
    private let matcher: KeyMatcher?
    /// Only when there is no matcher.
    private let positions: [String: Int]

    package init(_ names: [String]) {
        matcher = KeyMatcher(names)
        positions = matcher != nil
            ? [:] : Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The position of `name`, or `nil` when it is not listed.
    @inline(__always)
    package func position(of name: String) -> Int? {
        if let matcher { return matcher.position(of: name) }
        return positions[name]
    }
}
