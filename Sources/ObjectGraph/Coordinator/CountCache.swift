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

    private struct Entry {
        var stamps: [MergedOrder.Stamp]
        var count: Int
        var lastUse: Int
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
            state.entries[key]!.lastUse = state.use
            return entry.count
        }
    }

    /// Keeps a count just made.
    func keep(_ count: Int, for key: Key, stamps: [MergedOrder.Stamp]) {
        state.withLock { state in
            state.use += 1
            if state.entries[key] == nil, state.entries.count >= Self.limit,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries[oldest] = nil
            }
            state.entries[key] = Entry(stamps: stamps, count: count, lastUse: state.use)
        }
    }

    /// Forgets every count (the stores changed).
    func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    /// The number of counts kept.
    var count: Int { state.withLock { $0.entries.count } }
}
