/// The view of a record that predicates evaluate against: relationships resolve to other records of the store.
///
/// A class, so the kept sort orders hand views around with one reference count each; it never outlives the
/// request (or the kept order inside the store) that made it, hence the unsafe reference to the store.
final class RecordView: PredicateEvaluable {
    let record: StoreRecord
    unowned(unsafe) let store: any SortedOrderStore
    let entity: EntityDescription

    init(record: StoreRecord, store: any SortedOrderStore, entity: EntityDescription) {
        self.record = record
        self.store = store
        self.entity = entity
    }

    func predicateValue(forKey key: String) throws -> Any? {
        let layout = entity.layout
        guard let slot = layout.slot(forKey: key) else { throw unknownKeyError(key, entityName: entity.name) }
        switch layout.kinds[slot] {
        case .attribute, .other:
            return record[key]
        case .toMany:
            let ids = record[key] as? [ManagedObjectID] ?? []
            return ids.compactMap { store.view(of: $0) }
        case .toOne:
            guard let id = record[key] as? ManagedObjectID else { return nil }
            return store.view(of: id)
        }
    }

    var predicateIdentity: (any Hashable & Sendable)? { record.objectID }

    /// A sort key's value for the record: a plain attribute is read straight from the record, key paths through
    /// the view.
    func sortValue(_ key: SortKey) throws -> Any? {
        if key.isPlainKey, entity.attributesByName[key.keyPath] != nil { return record[key.keyPath] }
        return try key.value(of: self)
    }
}
