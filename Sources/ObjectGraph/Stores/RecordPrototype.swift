/// The keys of records' values laid out once, so that each record's dictionary is made without hashing a key.
///
/// A record's values are the prototype's `mapValues`, which keeps the prototype's hash table. A `mapValues` over
/// one dictionary that never changes visits its entries in the same order every time; that order is recorded once
/// here, so each entry's position is known without reading it back. Entries left without a value are removed after.
/// Used to hand out the values of records that keep them as rows (see ``RecordKeys``) as a dictionary.
struct RecordPrototype: Sendable {
    let prototype: [String: any Sendable]
    /// The position (in `keys`) of each entry, in the order `prototype.mapValues` visits them.
    let visitOrder: [Int]
    let keys: [String]

    /// Keys by position.
    init(keys: [String]) {
        var prototype: [String: any Sendable] = Dictionary(minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { prototype[key] = position }
        var order: [Int] = []
        order.reserveCapacity(keys.count)
        _ = prototype.mapValues { placeholder -> any Sendable in
            order.append(placeholder as! Int)
            return placeholder
        }
        self.prototype = prototype
        self.visitOrder = order
        self.keys = keys
    }

    /// A dictionary holding `value(position)` under each key, without the keys whose value is nil.
    func values(_ value: (Int) -> (any Sendable)?) -> [String: any Sendable] {
        var visited = 0
        var missing: [Int] = []
        var values = prototype.mapValues { placeholder -> any Sendable in
            let position = visitOrder[visited]
            visited += 1
            if let value = value(position) { return value }
            missing.append(position)
            return placeholder
        }
        for position in missing { values[keys[position]] = nil }
        return values
    }
}
