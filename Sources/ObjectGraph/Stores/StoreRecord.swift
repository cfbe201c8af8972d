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
    var storage: Storage
    /// Whether the record was read without its to-many relationships' destinations
    /// (``PersistentStore/recordsWithoutToManyLists(for:)``): an object filled from it reads each list from its
    /// store when the list is first used, as Core Data's to-many faults do.
    package var omitsToManyLists = false
    /// For a record of ``StoreChanges/updated``: the names of the properties whose values changed since the object
    /// was read, when the context knows them; `nil` when it does not (every value counts as changed). The record
    /// still holds every value. A store that writes values one by one may write only these, as Core Data's SQLite
    /// store does: a value it could not read (a file-backed future, an external file that is missing) then stays
    /// as it was instead of being overwritten with nothing.
    public var changedKeys: Set<String>?

    /// How a record keeps its values: a dictionary, or (records a store or a context makes by the thousand) an array
    /// laid out by keys that all records of the same shape share, which is made and freed without hashing a key.
    enum Storage: Sendable {
        case dictionary([String: any Sendable])
        case row(RecordKeys, [(any Sendable)?])
    }

    /// Creates a record.
    public init(objectID: ManagedObjectID, version: Int64 = 1, values: [String: any Sendable] = [:]) {
        self.objectID = objectID
        self.version = version
        self.storage = .dictionary(values)
    }

    /// Creates a record whose values are `row`, by the positions of `keys` (nil for an absent key).
    package init(objectID: ManagedObjectID, version: Int64, keys: RecordKeys, row: [(any Sendable)?]) {
        precondition(row.count == keys.names.count, "a record's row has one value per key")
        self.objectID = objectID
        self.version = version
        self.storage = .row(keys, row)
    }

    /// The persistent values by property name.
    ///
    /// Records that stores and contexts make in bulk keep their values in an array laid out by key, and reading
    /// `values` builds the dictionary; to read a few values, use the subscript.
    public var values: [String: any Sendable] {
        get {
            switch storage {
            case .dictionary(let values): values
            case .row(let keys, let row): keys.prototype.values { row[$0] }
            }
        }
        set { storage = .dictionary(newValue) }
    }

    /// The value of a property.
    public subscript(key: String) -> (any Sendable)? {
        get {
            switch storage {
            case .dictionary(let values): values[key]
            case .row(let keys, let row): keys.position(of: key).flatMap { row[$0] }
            }
        }
        set {
            switch storage {
            case .dictionary(var values):
                storage = .dictionary([:])  // so that the dictionary is changed in place
                values[key] = newValue
                storage = .dictionary(values)
            case .row(let keys, var row):
                if let position = keys.position(of: key) {
                    storage = .dictionary([:])
                    row[position] = newValue
                    storage = .row(keys, row)
                } else if newValue != nil {
                    var values = self.values
                    values[key] = newValue
                    storage = .dictionary(values)
                }
            }
        }
    }

    /// Sets the value at a position of the record's row (nothing when it keeps its values otherwise).
    package mutating func setRowValue(_ value: (any Sendable)?, at position: Int) {
        guard case .row(let keys, var row) = storage else { return }
        storage = .dictionary([:])  // so that the row is changed in place
        row[position] = value
        storage = .row(keys, row)
    }

    /// The values as a row laid out by `keys`, when the record keeps them so.
    package func row(laidOutBy keys: RecordKeys) -> [(any Sendable)?]? {
        if case .row(let own, let row) = storage, own === keys { return row }
        return nil
    }

    /// The value at `position` of the record's row (nil when `position` is negative), when the record keeps its
    /// values as a row laid out by `keys`; `.none` otherwise. Reads the row in place, without copying it out.
    package func rowValue(at position: Int, laidOutBy keys: RecordKeys) -> (any Sendable)?? {
        guard case .row(let own, let row) = storage, own === keys else { return .none }
        return position < 0 ? .some(nil) : .some(row[position])
    }

    /// The record's keys and row, when it keeps its values as a row.
    package var row: (keys: RecordKeys, values: [(any Sendable)?])? {
        if case .row(let keys, let row) = storage { return (keys, row) }
        return nil
    }
}

/// The keys of records that keep their values as rows, each at a position; shared by all records of one shape.
package final class RecordKeys: Sendable {
    /// The keys by position.
    package let names: [String]
    private let index: NameIndex
    /// Makes the dictionary of a row's values without hashing a key.
    let prototype: RecordPrototype

    package init(_ names: [String]) {
        self.names = names
        index = NameIndex(names)
        prototype = RecordPrototype(keys: names)
    }

    /// The position of a key, or `nil` when it is none of them.
    @inline(__always)
    package func position(of key: String) -> Int? { index.position(of: key) }
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
    /// What the store records in its persistent history for this save, in the same transaction; set by the
    /// coordinator for stores that track history (``PersistentStore/isTrackingPersistentHistory``), else `nil`.
    public var history: PersistentHistoryRecording?

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
