import Testing

@testable import ObjectGraph

/// The coordinator's kept counts: found for the same request over the same stores, and when full, the least
/// recently used goes first.
struct CountCacheTests {
    static let stamps = [MergedOrder.Stamp(instanceNumber: 1, storeIndex: 0, contentVersion: 7)]

    static func key(_ number: Int) throws -> CountCache.Key {
        CountCache.Key(
            entityName: "Session", entityNames: ["Session"],
            predicate: try ObjectPredicate(format: "duration == %d", number))
    }

    @Test func aCountIsFoundForTheSameRequestOverTheSameStoresOnly() throws {
        let cache = CountCache()
        cache.keep(12, for: try Self.key(1), stamps: Self.stamps)
        #expect(cache.count(for: try Self.key(1), stamps: Self.stamps) == 12)
        #expect(cache.count(for: try Self.key(2), stamps: Self.stamps) == nil)
        let changed = [MergedOrder.Stamp(instanceNumber: 1, storeIndex: 0, contentVersion: 8)]
        #expect(cache.count(for: try Self.key(1), stamps: changed) == nil)
    }

    @Test func theLeastRecentlyUsedCountGoesWhenTheCacheIsFull() throws {
        let cache = CountCache()
        for number in 0..<CountCache.limit { cache.keep(number, for: try Self.key(number), stamps: Self.stamps) }
        // The first is used again: the second is now the least recently used.
        #expect(cache.count(for: try Self.key(0), stamps: Self.stamps) == 0)
        cache.keep(99, for: try Self.key(99), stamps: Self.stamps)
        #expect(cache.count == CountCache.limit)
        #expect(cache.count(for: try Self.key(1), stamps: Self.stamps) == nil)
        #expect(cache.count(for: try Self.key(0), stamps: Self.stamps) == 0)
        #expect(cache.count(for: try Self.key(2), stamps: Self.stamps) == 2)
        #expect(cache.count(for: try Self.key(99), stamps: Self.stamps) == 99)
        // Keeping a count again under a kept key replaces it and evicts nothing.
        cache.keep(100, for: try Self.key(99), stamps: Self.stamps)
        let replaced = cache.count(for: try Self.key(99), stamps: Self.stamps)
        #expect(cache.count == CountCache.limit && replaced == 100)
    }
}
