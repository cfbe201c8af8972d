/// Positions by object identity: an open-addressing hash table with linear probing and a multiplicative hash.
///
/// A context adds every new object to two lists; `Dictionary` runs SipHash and its general probing for each, which
/// was most of the cost of inserting an object. Keys here are object addresses (never zero, evenly spread by the
/// multiplication), and deletion shifts the following entries back, so no tombstones build up.
struct AddressTable {
    private struct Entry {
        var key: UInt  // 0: empty
        var value: Int
    }

    private var entries: [Entry] = []
    /// `64 - log2(entries.count)`: the hash keeps the top bits of the product.
    private var shift = 64
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The position of the entry for `key`, or of the empty entry where it would go.
    private func probe(_ key: UInt) -> Int {
        let mask = entries.count - 1
        var index = home(of: key)
        while entries[index].key != 0, entries[index].key != key { index = (index + 1) & mask }
        return index
    }

    subscript(key: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let entry = entries[probe(UInt(bitPattern: key))]
        return entry.key == 0 ? nil : entry.value
    }

    /// Adds or replaces the value for `key`; returns whether the key is new.
    @discardableResult
    mutating func updateValue(_ value: Int, forKey key: ObjectIdentifier) -> Bool {
        if 2 * (count + 1) > entries.count { grow() }
        let raw = UInt(bitPattern: key)
        let index = probe(raw)
        let isNew = entries[index].key == 0
        entries[index] = Entry(key: raw, value: value)
        if isNew { count += 1 }
        return isNew
    }

    /// Adds `key` with `value` unless it is there already (then nothing changes); returns whether it was added.
    mutating func insert(_ value: Int, forKey key: ObjectIdentifier) -> Bool {
        if 2 * (count + 1) > entries.count { grow() }
        let raw = UInt(bitPattern: key)
        let index = probe(raw)
        guard entries[index].key == 0 else { return false }
        entries[index] = Entry(key: raw, value: value)
        count += 1
        return true
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func removeValue(forKey key: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        var hole = probe(UInt(bitPattern: key))
        guard entries[hole].key != 0 else { return nil }
        let value = entries[hole].value
        // Shift back every following entry of the run that may sit in the hole (its home is not between the
        // hole and itself, cyclically).
        let mask = entries.count - 1
        var next = (hole + 1) & mask
        while entries[next].key != 0 {
            let wanted = home(of: entries[next].key)
            let staysPut = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
            if !staysPut {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        entries[hole] = Entry(key: 0, value: 0)
        count -= 1
        return value
    }

    mutating func removeAll() {
        entries = []
        shift = 64
        count = 0
    }

    private mutating func grow() {
        let old = entries
        let size = max(16, old.count * 2)
        entries = Array(repeating: Entry(key: 0, value: 0), count: size)
        shift = 64 - size.trailingZeroBitCount
        for entry in old where entry.key != 0 { entries[probe(entry.key)] = entry }
    }
}
