/// Counts over several atomic stores, kept for the next count of the same request over the same stores.
///
/// A sorted, paged fetch usually asks for its total too; over 100 stores that total costs a count in each store per
/// request. A count stays valid while every store it covers is the same store object, at the same position, with
/// the same contents (the stamps of ``MergedOrder``), and only predicates whose result depends on the records alone
/// are kept (not one calling `now()`).
final class CountCache: Sendable {
    /// The most counts kept; the least recently used goes first.
    static let limit = 32

    struct Key: Hashable {
        let entityName: String
        let entityNames: [String]
        let predicate: ObjectPredicate?
    }

    /// A count, its stores and its key, in a class: finding the least recently used entry walks the entries, and
    /// walking a dictionary of structs copied every key and its stamps (a retain and a release of each part, a fifth
    /// of a count over 100 stores when each request counted a new predicate, as `SessionsAt` at a new moment does).
    private final class Entry {
        let key: Key
        let stamps: [MergedOrder.Stamp]
        let count: Int
        var lastUse: Int

        init(key: Key, stamps: [MergedOrder.Stamp], count: Int, lastUse: Int) {
            self.key = key
            self.stamps = stamps
            self.count = count
            self.lastUse = lastUse
        }
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var use = 0
    }

    private let state = LockedValue(State())

    /// The count kept for `key` over exactly these stores, if any.
    func count(for key: Key, stamps: [MergedOrder.Stamp]) -> Int? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.stamps == stamps else { return nil }
            state.use += 1
            entry.lastUse = state.use
            return entry.count
        }
    }

    /// Keeps a count just made.
    func keep(_ count: Int, for key: Key, stamps: [MergedOrder.Stamp]) {
        state.withLock { state in
            state.use += 1
            if state.entries[key] == nil, state.entries.count >= Self.limit,
                let oldest = state.entries.values.min(by: { $0.lastUse < $1.lastUse })
            {
                state.entries[oldest.key] = nil
            }
            state.entries[key] = Entry(key: key, stamps: stamps, count: count, lastUse: state.use)
        }
    }

    /// Forgets every count (the stores changed).
    func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    /// The number of counts kept.
    var count: Int { state.withLock { $0.entries.count } }
}
