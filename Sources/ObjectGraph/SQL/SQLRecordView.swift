import Foundation

/// A fetched row as predicates and sort keys see it when they are evaluated in memory: attributes from the
/// record, relationships resolved to other rows of the store (read once per fetch through a ``RecordCache``).
package struct SQLRecordView: PredicateEvaluable {
    package let record: StoreRecord
    package let entity: EntityDescription
    package let cache: RecordCache

    package init(record: StoreRecord, entity: EntityDescription, cache: RecordCache) {
        self.record = record
        self.entity = entity
        self.cache = cache
    }

    package func predicateValue(forKey key: String) throws -> Any? {
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

    package var predicateIdentity: (any Hashable & Sendable)? { record.objectID }
}

/// The records read while evaluating one fetch in memory.
package final class RecordCache {
    private let model: ManagedObjectModel
    private let read: (ManagedObjectID) throws -> StoreRecord?
    private var records: [ManagedObjectID: StoreRecord?] = [:]

    /// A cache that reads records of `model`'s entities with `read` (the store's record lookup).
    package init(model: ManagedObjectModel, read: @escaping (ManagedObjectID) throws -> StoreRecord?) {
        self.model = model
        self.read = read
    }

    /// The view of another object of the store, or `nil` if the store does not hold it.
    package func view(of id: ManagedObjectID) throws -> SQLRecordView? {
        let record: StoreRecord?
        if let cached = records[id] {
            record = cached
        } else {
            record = try read(id)
            records[id] = record
        }
        guard let record, let entity = model.entitiesByName[id.entityName] else { return nil }
        return SQLRecordView(record: record, entity: entity, cache: self)
    }
}

extension SQLRecordView {
    /// Filters, sorts and limits fetched rows in memory, as the in-memory stores do: what an SQL store does when
    /// a fetch's predicate or sort keys do not translate exactly.
    package static func finishInMemory(
        _ rows: [(ManagedObjectID, StoreRecord)], request: StoreFetchRequest,
        model: ManagedObjectModel,
        read: @escaping (ManagedObjectID) throws -> StoreRecord?
    ) throws
        -> [StoreFetchResult]
    {
        let cache = RecordCache(model: model, read: read)
        let compiled = try request.predicate?.compiled()
        var views: [SQLRecordView] = []
        views.reserveCapacity(rows.count)
        for (index, (id, record)) in rows.enumerated() {
            // A deadline stops a long evaluation as SQLite's progress handler stops a long statement.
            if index & 0xFFF == 0xFFF { try StoreCancellation.checkCancellation() }
            guard let entity = model.entitiesByName[id.entityName] else { continue }
            let view = SQLRecordView(record: record, entity: entity, cache: cache)
            if let compiled, try !compiled.evaluate(with: view) { continue }
            views.append(view)
        }
        if !request.sortKeys.isEmpty {
            views = try SortKey.sort(views, by: request.sortKeys) { view, key in try key.value(of: view) }
        }
        if request.limit > 0, views.count > request.limit { views.removeSubrange(request.limit...) }
        let properties = request.propertiesToFetch.map(Set.init)
        return try views.map { view in
            var record: StoreRecord?
            if request.includesValues {
                record = view.record
                if let properties { record!.values = record!.values.filter { properties.contains($0.key) } }
            }
            return StoreFetchResult(
                objectID: view.record.objectID,
                sortValues: try request.sortKeys.map { sortValue(try $0.value(of: view)) },
                record: record)
        }
    }

    /// A sort value as the coordinator merges them: related objects become their IDs.
    package static func sortValue(_ value: Any?) -> (any Sendable)? {
        switch value {
        case nil: nil
        case let view as SQLRecordView: view.record.objectID
        case let v as Int: v
        case let v as Double: v
        case let v as Decimal: v
        case let v as String: v
        case let v as Bool: v
        case let v as Date: v
        case let v as Data: v
        case let v as UUID: v
        case let v as URL: v
        case let v as Float: v
        default: nil
        }
    }
}
