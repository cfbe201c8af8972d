/// Finds a name among a few without hashing it: a name's UTF-8 length and first and last bytes pick one slot of a
/// small table, and a string comparison (equal small strings compare in one step) confirms it.
struct KeyMatcher {
    private static let slotCount = 256
    private let names: [String?]
    private let table: [Int16]

    /// A matcher for the non-nil names, by position; `nil` when two of them share a slot or a name is empty.
    init?(_ names: [String?]) {
        var table = [Int16](repeating: -1, count: Self.slotCount)
        for (position, name) in names.enumerated() {
            guard let name else { continue }
            guard let slot = Self.slot(of: name), table[slot] < 0, position <= Int(Int16.max) else { return nil }
            table[slot] = Int16(position)
        }
        self.names = names
        self.table = table
    }

    /// The position of `key` among the names, or `nil` when it is none of them.
    @inline(__always)
    func position(of key: String) -> Int? {
        guard let slot = Self.slot(of: key) else { return names.firstIndex { $0 == key } }
        let position = Int(table[slot])
        guard position >= 0, names[position] == key else { return nil }
        return position
    }

    /// The slot of a name; `nil` when its UTF-8 is not contiguous (or it is empty).
    @inline(__always)
    private static func slot(of name: String) -> Int? {
        name.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let first = bytes.first, let last = bytes.last else { return nil }
            return (bytes.count &* 31 &+ Int(first) &* 7 &+ Int(last)) & (slotCount - 1)
        } ?? nil
    }
}
