import Foundation
import ObjectGraph

/// A fetched row as predicates and sort keys see it when they are evaluated in memory: attributes from the
/// record, relationships resolved to other rows of the store (read once per fetch through a ``RecordCache``).
struct SQLiteRecordView: PredicateEvaluable {
    let record: StoreRecord
    let entity: EntityDescription
    let cache: RecordCache

    func predicateValue(forKey key: String) throws -> Any? {
        guard let property = entity.propertiesByName[key] else {
            throw ObjectPredicateError.unknownKey(key, in: entity.name)
        }
        guard let relationship = property as? RelationshipDescription else { return record[key] }
        if relationship.isToMany {
            let ids = record[key] as? [ManagedObjectID] ?? []
            return try ids.compactMap { try cache.view(of: $0) }
        }
        guard let id = record[key] as? ManagedObjectID else { return nil }
        return try cache.view(of: id)
    }

    var predicateIdentity: (any Hashable & Sendable)? { record.objectID }
}

/// The records read while evaluating one fetch in memory.
final class RecordCache {
    private unowned let store: SQLiteStore
    private var records: [ManagedObjectID: StoreRecord?] = [:]

    init(store: SQLiteStore) {
        self.store = store
    }

    /// The view of another object of the store, or `nil` if the store does not hold it.
    func view(of id: ManagedObjectID) throws -> SQLiteRecordView? {
        let record: StoreRecord?
        if let cached = records[id] {
            record = cached
        } else {
            record = try store.readRecord(id)
            records[id] = record
        }
        guard let record, let entity = store.model.entitiesByName[id.entityName] else { return nil }
        return SQLiteRecordView(record: record, entity: entity, cache: self)
    }
}
