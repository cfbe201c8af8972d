/// Records in one order, with their sort values prepared for comparing (`keys.count` values per record).
/// A class: a cache hit hands it out and marks its use without copying.
// @unchecked: immutable but `lastUse`, which changes under the store's lock.
final class SortedOrder: KeptOrder, @unchecked Sendable {
    struct Key: Hashable {
        let entityNames: Set<String>
        let sortKeys: [SortKey]
        private let hash: Int

        init(entityNames: Set<String>, sortKeys: [SortKey]) {
            self.entityNames = entityNames
            self.sortKeys = sortKeys
            var hasher = Hasher()
            hasher.combine(entityNames)
            for key in sortKeys {
                hasher.combine(key.keyPath)
                hasher.combine(key.ascending)
                hasher.combine(key.comparison)
            }
            hash = hasher.finalize()
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.sortKeys == rhs.sortKeys && lhs.entityNames == rhs.entityNames
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    let views: [RecordView]
    /// The entities whose records the order holds.
    let entities: [EntityDescription]
    let keys: [SortKey]
    let prepared: [SortValue]
    var lastUse: Int

    /// Columns of the attributes predicates read, in this order's positions.
    let columns: RowColumns

    init(
        views: [RecordView], entities: [EntityDescription], keys: [SortKey], prepared: [SortValue],
        lastUse: Int
    ) {
        self.views = views
        self.entities = entities
        self.keys = keys
        self.prepared = prepared
        self.lastUse = lastUse
        self.columns = RowColumns(views: views, entities: entities)
    }
}
