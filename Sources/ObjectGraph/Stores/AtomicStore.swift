import Foundation

/// The family of stores that load the whole graph at once and write it as one unit (Core Data's
/// `NSAtomicStore`): the in-memory, XML and binary stores and custom file formats.
///
/// The base class keeps every object as a ``StoreRecord`` (a cache node) and executes fetches, counts and saves
/// over them. A custom format subclasses it and overrides:
/// - ``storeType`` (the name it registers under),
/// - ``PersistentStore/loadMetadata()`` (read the UUID and model hashes from the file, or call `freshMetadata()`),
/// - ``PersistentStore/load()`` (read the file and call ``addCacheNodes(_:)``),
/// - ``prepareWrite(records:metadata:)`` (encode the records, usually with ``AtomicFileWriter``) — omit it for a
///   read-only format and add the store with the `.readOnly` option.
open class AtomicStore: PersistentStore, @unchecked Sendable {  // used only under its coordinator's lock
    private var tables: [String: [Int64: StoreRecord]] = [:]
    private var recordCount = 0
    /// The next unused reference key (Core Data's XML `nextObjectID`).
    public var nextReferenceKey: Int64 = 1

    // MARK: Cache nodes

    /// Adds loaded records to the store's cache; used by ``PersistentStore/load()``.
    public func addCacheNodes(_ records: [StoreRecord]) {
        for record in records {
            let id = record.objectID
            if tables[id.entityName, default: [:]].updateValue(record, forKey: id.referenceKey) == nil {
                recordCount += 1
            }
            if id.referenceKey >= nextReferenceKey { nextReferenceKey = id.referenceKey + 1 }
        }
    }

    /// Every record, ordered by entity name and then reference key (a deterministic order for writing).
    public func cacheNodes() -> [StoreRecord] {
        tables.keys.sorted().flatMap { name in
            tables[name]!.values.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        }
    }

    /// The number of objects in the store.
    public var cacheNodeCount: Int { recordCount }

    /// The record of one object, if the store holds it.
    public func cacheNode(for objectID: ManagedObjectID) -> StoreRecord? {
        guard objectID.storeIdentifier == identifier else { return nil }
        return tables[objectID.entityName]?[objectID.referenceKey]
    }

    /// Whether saves write the records somewhere; `false` skips preparing them for ``prepareWrite(records:metadata:)``.
    open var writesFiles: Bool { true }

    /// The second half of a save for a file format: encodes every record and returns the pending write.
    ///
    /// The default (for the in-memory store) writes nothing. File formats write a temporary file here and rename
    /// it in `commit()`; ``AtomicFileWriter`` does both.
    open func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        ImmediateSave()
    }

    // MARK: Requests

    open override func fetch(_ request: StoreFetchRequest) throws -> [StoreFetchResult] {
        let compiled = try request.predicate?.compiled()
        let entities = model.entitiesByName
        var matched: [RecordView] = []
        for name in request.entityNames.sorted() {
            guard let table = tables[name], let entity = entities[name] else { continue }
            matched.reserveCapacity(matched.count + table.count)
            for record in table.values {
                let view = RecordView(record: record, store: self, entity: entity)
                if let compiled, try !compiled.evaluate(with: view) { continue }
                matched.append(view)
            }
        }
        // Reference keys are unique within a store, so they order ties exactly as object IDs do, far cheaper.
        matched.sort { $0.record.objectID.referenceKey < $1.record.objectID.referenceKey }
        // A plain attribute name is read straight from the record; key paths go through the view.
        let value: (RecordView, SortKey) throws -> Any? = { view, key in
            if key.isPlainKey, view.entity.attributesByName[key.keyPath] != nil { return view.record.values[key.keyPath] }
            return try key.value(of: view)
        }
        if request.limit > 0, matched.count > request.limit {
            matched = try SortKey.smallest(request.limit, of: matched, by: request.sortKeys, value: value)
        } else if !request.sortKeys.isEmpty {
            matched = try SortKey.sort(matched, by: request.sortKeys, value: value)
        }
        return try matched.map { view in
            StoreFetchResult(objectID: view.record.objectID,
                             sortValues: try request.sortKeys.map { try Self.sendable($0.value(of: view)) },
                             record: request.includesValues ? view.record : nil)
        }
    }

    open override func count(_ request: StoreFetchRequest) throws -> Int {
        guard let predicate = request.predicate else {
            return request.entityNames.reduce(0) { $0 + (tables[$1]?.count ?? 0) }
        }
        var count = 0
        for name in request.entityNames {
            guard let entity = model.entitiesByName[name] else { continue }
            for record in tables[name]?.values ?? [:].values where try predicate.evaluate(
                with: RecordView(record: record, store: self, entity: entity)) {
                count += 1
            }
        }
        return count
    }

    open override func record(for objectID: ManagedObjectID) throws -> StoreRecord? {
        cacheNode(for: objectID)
    }

    open override func newReferenceKeys(forEntityName entityName: String, count: Int) throws -> [Int64] {
        let first = nextReferenceKey
        nextReferenceKey += Int64(count)
        return (0..<Int64(count)).map { first + $0 }
    }

    open override func allRecords() throws -> [StoreRecord] { cacheNodes() }

    open override func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        var staged = tables
        var stagedCount = recordCount
        var conflicts: [ManagedObjectID] = []
        for record in changes.updated {
            let id = record.objectID
            guard let current = staged[id.entityName]?[id.referenceKey], current.version == record.version else {
                conflicts.append(id)
                continue
            }
            var next = record
            next.version = current.version + 1
            staged[id.entityName]![id.referenceKey] = next
        }
        for (id, version) in changes.deleted {
            guard let current = staged[id.entityName]?[id.referenceKey], current.version == version else {
                conflicts.append(id)
                continue
            }
            staged[id.entityName]![id.referenceKey] = nil
            stagedCount -= 1
        }
        guard conflicts.isEmpty else {
            throw StoreError(code: .mergeConflict,
                             message: "\(conflicts.count) object(s) changed in the store since they were read; "
                                + "refresh them or set a merge policy on the context.",
                             context: ErrorContext(storeURL: url), objectIDs: conflicts)
        }
        for record in changes.inserted {
            let id = record.objectID
            if staged[id.entityName, default: [:]].updateValue(record, forKey: id.referenceKey) == nil {
                stagedCount += 1
            }
            if id.referenceKey >= nextReferenceKey { nextReferenceKey = id.referenceKey + 1 }
        }
        var newMetadata = metadata
        newMetadata.modelVersionHashes = modelVersionHashes()
        let ordered = writesFiles ? staged.keys.sorted().flatMap { name in
            staged[name]!.values.sorted { $0.objectID.referenceKey < $1.objectID.referenceKey }
        } : []
        let write = try prepareWrite(records: ordered, metadata: newMetadata)
        return StagedAtomicSave(write: write) { [self] in
            tables = staged
            recordCount = stagedCount
            metadata = newMetadata
        }
    }

    static func sendable(_ value: Any?) -> (any Sendable)? {
        value.map(assumeSendable)
    }

    /// The view of a record that predicates evaluate against: relationships resolve to other records of the store.
    struct RecordView: PredicateEvaluable {
        let record: StoreRecord
        unowned let store: AtomicStore
        let entity: EntityDescription

        func predicateValue(forKey key: String) throws -> Any? {
            guard let property = entity.propertiesByName[key] else {
                throw unknownKeyError(key, entityName: entity.name)
            }
            guard let relationship = property as? RelationshipDescription else { return record.values[key] }
            if relationship.isToMany {
                let ids = record.values[key] as? [ManagedObjectID] ?? []
                return ids.compactMap { store.view(of: $0) }
            }
            guard let id = record.values[key] as? ManagedObjectID else { return nil }
            return store.view(of: id)
        }

        var predicateIdentity: (any Hashable & Sendable)? { record.objectID }
    }

    /// The predicate view of another record of this store, if the store holds it.
    func view(of id: ManagedObjectID) -> RecordView? {
        guard let record = cacheNode(for: id), let entity = model.entitiesByName[id.entityName] else { return nil }
        return RecordView(record: record, store: self, entity: entity)
    }
}

/// An atomic store's prepared save: the file write plus swapping in the staged records on commit.
private struct StagedAtomicSave: PreparedSave {
    let write: any PreparedSave
    let apply: () -> Void

    func commit() throws {
        try write.commit()
        apply()
    }

    func abort() { write.abort() }
}

extension StoreFetchResult {
    /// Whether `lhs` sorts before `rhs` by the keys, then by object ID.
    static func precedes(_ lhs: StoreFetchResult, _ rhs: StoreFetchResult, by keys: [SortKey]) -> Bool {
        for (index, key) in keys.enumerated() {
            switch key.compare(lhs.sortValues[index], rhs.sortValues[index]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return lhs.objectID < rhs.objectID
    }
}

/// The store that keeps its objects in memory only (Core Data's `NSInMemoryStoreType`).
public final class InMemoryStore: AtomicStore, @unchecked Sendable {  // used only under its coordinator's lock
    public override class var storeType: PersistentStoreType { .inMemory }
    public override var writesFiles: Bool { false }
}
