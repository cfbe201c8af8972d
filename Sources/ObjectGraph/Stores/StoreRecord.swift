import Foundation

/// One object as a store holds it: its ID, its version and its values.
///
/// Attributes hold their canonical values; a to-one relationship holds the destination's ``ManagedObjectID``;
/// a to-many relationship holds `[ManagedObjectID]` (in order, for ordered relationships). A nil value is an
/// absent key. This is what Core Data calls a cache node (atomic stores) or a store node (incremental stores).
public struct StoreRecord: Sendable {
    /// The object's ID.
    public var objectID: ManagedObjectID
    /// The version, incremented by every save (optimistic locking; Core Data's `Z_OPT`).
    public var version: Int64
    /// The persistent values by property name.
    public var values: [String: any Sendable]

    /// Creates a record.
    public init(objectID: ManagedObjectID, version: Int64 = 1, values: [String: any Sendable] = [:]) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }

    /// The value of a property.
    public subscript(key: String) -> (any Sendable)? {
        get { values[key] }
        set { values[key] = newValue }
    }
}

/// A fetch as the coordinator hands it to one store.
public struct StoreFetchRequest: @unchecked Sendable {  // EntityDescription is immutable once its model is frozen
    /// The fetched entity.
    public var entity: EntityDescription
    /// The names of the entities whose instances match: the entity and, unless excluded, its sub-entities.
    public var entityNames: Set<String>
    /// The condition; `nil` matches every object.
    public var predicate: ObjectPredicate?
    /// The order; the store returns results sorted by these keys, then by object ID.
    public var sortKeys: [SortKey]
    /// How many sorted results the store may stop after; 0 means all. (The coordinator applies the offset.)
    public var limit: Int
    /// The properties the caller needs; `nil` means all.
    public var propertiesToFetch: [String]?
    /// Whether the store should return each object's values along with its ID.
    public var includesValues: Bool

    /// Creates a store fetch request.
    public init(entity: EntityDescription, entityNames: Set<String>, predicate: ObjectPredicate?, sortKeys: [SortKey],
                limit: Int, propertiesToFetch: [String]? = nil, includesValues: Bool = true) {
        self.entity = entity
        self.entityNames = entityNames
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.propertiesToFetch = propertiesToFetch
        self.includesValues = includesValues
    }
}

/// One result of a store fetch: an object ID, the values of the request's sort keys, and optionally its record.
public struct StoreFetchResult: Sendable {
    /// The object's ID.
    public var objectID: ManagedObjectID
    /// The values of the request's sort keys, in order, for merging results of several stores.
    public var sortValues: [(any Sendable)?]
    /// The object's record, when the store had it at hand.
    public var record: StoreRecord?

    /// Creates a result.
    public init(objectID: ManagedObjectID, sortValues: [(any Sendable)?], record: StoreRecord?) {
        self.objectID = objectID
        self.sortValues = sortValues
        self.record = record
    }
}

/// What one save changes in one store.
public struct StoreChanges: Sendable {
    /// New objects, with version 1.
    public var inserted: [StoreRecord] = []
    /// Changed objects: the full new values, with ``StoreRecord/version`` holding the version the context read
    /// (the store refuses the save with a merge conflict if its version differs).
    public var updated: [StoreRecord] = []
    /// Removed objects with the version the context read.
    public var deleted: [(objectID: ManagedObjectID, version: Int64)] = []

    /// Creates an empty change set.
    public init() {}

    /// Whether nothing changes.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Every object ID the changes touch.
    public var objectIDs: [ManagedObjectID] {
        inserted.map(\.objectID) + updated.map(\.objectID) + deleted.map(\.objectID)
    }
}

/// The first phase of a save, done: everything is written but not yet visible. `commit()` makes it visible
/// (an atomic store renames its temporary file; an incremental store commits its transaction), `abort()` undoes it.
public protocol PreparedSave {
    /// Makes the prepared changes visible. Throws if that fails; the store is then unchanged.
    func commit() throws
    /// Discards the prepared changes.
    func abort()
}

/// A prepared save that needs no second phase.
public struct ImmediateSave: PreparedSave {
    private let onCommit: () throws -> Void

    /// Creates a prepared save that runs `onCommit` when committed.
    public init(onCommit: @escaping () throws -> Void = {}) {
        self.onCommit = onCommit
    }

    public func commit() throws { try onCommit() }
    public func abort() {}
}
