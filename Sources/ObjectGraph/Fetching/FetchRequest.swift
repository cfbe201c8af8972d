import Foundation

/// A description of what to fetch: an entity, a predicate, sort keys, paging and options.
///
/// Like Core Data's `NSFetchRequest`, a request is a mutable object you configure and pass to
/// ``ManagedObjectContext/fetch(_:)``. It belongs to the isolation domain that made it.
public final class FetchRequest {
    /// The entity to fetch.
    public var entityName: String
    /// The condition objects must meet; `nil` matches every object.
    public var predicate: ObjectPredicate?
    /// The order of the results; ties are broken by store add order, then by object ID.
    public var sortKeys: [SortKey] = []
    /// The most objects to return; 0 means no limit. Applies to the union over all stores.
    public var fetchLimit: Int = 0
    /// How many objects of the sorted union to skip.
    public var fetchOffset: Int = 0
    /// How many objects' values are read at a time; 0 (the default) reads them all with the fetch.
    ///
    /// With a batch size, a fetch reads only the matching objects' IDs (and sort values) and returns faults,
    /// grouped in result order into batches of this size: touching any object of a batch loads the whole batch with
    /// one request to its store (one query for the SQLite store). Objects already loaded in the context, and objects
    /// of atomic stores (which hold every value in memory), come back loaded. When unsaved changes take part (see
    /// ``includesPendingChanges``), values are read with the fetch. Not kept in templates.
    public var fetchBatchSize: Int = 0
    /// Whether instances of sub-entities match too.
    public var includesSubentities = true
    /// Whether unsaved changes in the context take part (inserted objects included, deleted excluded).
    public var includesPendingChanges = true
    /// Whether fetched objects come back as faults (the default, as in Core Data). Their values come with the fetch
    /// all the same (Core Data's row cache) and fill the object on first access, without asking the store again
    /// unless a save through the coordinator happened in between. `false` fills every object at fetch time (and
    /// calls ``ManagedObject/awakeFromFetch()`` then). Objects already registered in the context are not changed.
    /// A fault from an atomic store refers to the store's record rather than copying its values, so until it fires
    /// (or is refreshed) it keeps the records of the sort order it was fetched from alive, even after a save
    /// replaced them.
    public var returnsObjectsAsFaults = true
    /// The stores to search; `nil` searches every store whose configuration holds the entity.
    public var affectedStores: [PersistentStore]?
    /// The properties to load; `nil` loads all (incremental stores select only these columns).
    public var propertiesToFetch: [String]?
    /// Accepted for Core Data compatibility and kept in templates; not used yet: destinations load on first access.
    public var relationshipKeyPathsForPrefetching: [String] = []

    /// Creates a request for an entity.
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// Creates a request from a stored template.
    public init(template: FetchRequestTemplate) {
        entityName = template.entityName
        predicate = template.predicate
        sortKeys = template.sortKeys
        fetchLimit = template.fetchLimit
        fetchOffset = template.fetchOffset
        includesSubentities = template.includesSubentities
        includesPendingChanges = template.includesPendingChanges
        returnsObjectsAsFaults = template.returnsObjectsAsFaults
        propertiesToFetch = template.propertiesToFetch
        relationshipKeyPathsForPrefetching = template.relationshipKeyPathsForPrefetching
    }

    /// The request as a `Sendable` value (without ``affectedStores``), as models store templates.
    public var template: FetchRequestTemplate {
        FetchRequestTemplate(entityName: entityName, predicate: predicate, sortKeys: sortKeys, fetchLimit: fetchLimit,
                             fetchOffset: fetchOffset, includesSubentities: includesSubentities,
                             includesPendingChanges: includesPendingChanges,
                             returnsObjectsAsFaults: returnsObjectsAsFaults, propertiesToFetch: propertiesToFetch,
                             relationshipKeyPathsForPrefetching: relationshipKeyPathsForPrefetching)
    }
}

/// A fetch request as a `Sendable` value: what a model keeps as a fetch request template.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The entity to fetch.
    public var entityName: String
    /// The predicate, possibly with `$VARIABLES`.
    public var predicate: ObjectPredicate?
    /// The order of the results.
    public var sortKeys: [SortKey]
    /// The most objects to return; 0 means no limit.
    public var fetchLimit: Int
    /// How many objects to skip.
    public var fetchOffset: Int
    /// Whether instances of sub-entities match too.
    public var includesSubentities: Bool
    /// Whether unsaved changes take part.
    public var includesPendingChanges: Bool
    /// Whether objects may come back as faults.
    public var returnsObjectsAsFaults: Bool
    /// The properties to load; `nil` loads all.
    public var propertiesToFetch: [String]?
    /// Relationship key paths to prefetch.
    public var relationshipKeyPathsForPrefetching: [String]

    /// Creates a template.
    public init(entityName: String, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = [], fetchLimit: Int = 0,
                fetchOffset: Int = 0, includesSubentities: Bool = true, includesPendingChanges: Bool = true,
                returnsObjectsAsFaults: Bool = true, propertiesToFetch: [String]? = nil,
                relationshipKeyPathsForPrefetching: [String] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.propertiesToFetch = propertiesToFetch
        self.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
    }
}
