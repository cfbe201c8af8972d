import Foundation

/// A description of what to fetch: an entity, a predicate, sort keys, paging and options.
///
/// Like Core Data's `NSFetchRequest`, a request is a mutable object you configure and pass to
/// ``ManagedObjectContext/fetch(_:)-(FetchRequest)``. It belongs to the isolation domain that made it.
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
    /// Whether the fetch reads the objects' values along with their IDs (Core Data's `includesPropertyValues`; the
    /// default). `false` reads IDs only: objects not yet loaded come back as plain faults, each loading its values
    /// from its store when first read. For fetches whose objects are only deleted or counted.
    public var includesPropertyValues = true
    /// Whether objects the context has already loaded take the values the fetch read (Core Data's
    /// `shouldRefreshRefetchedObjects`). Off by default: a loaded object keeps what it holds. On, each loaded object
    /// that the fetch returns gets the stores' values, with its own unsaved changes kept on top, as
    /// ``ManagedObjectContext/refresh(_:mergeChanges:)`` with `true` does (the next objects-did-change event reports
    /// it as refreshed).
    public var shouldRefreshRefetchedObjects = false
    /// The stores to search; `nil` searches every store whose configuration holds the entity.
    public var affectedStores: [PersistentStore]?
    /// What comes back: objects (the default), object IDs, dictionaries or a count; see
    /// ``ManagedObjectContext/execute(_:)-(FetchRequest)``.
    public var resultType: FetchRequestResultType = .managedObject
    /// The properties to load, mixed as Core Data's `[Any]` allows: names, key paths through to-one relationships,
    /// property descriptions and ``ExpressionDescription``s (`request.propertiesToFetch = ["city", total]`).
    ///
    /// For objects, `nil` loads all and names restrict what is read (incremental stores select only these
    /// columns; key paths and expressions are ignored). For dictionaries, each entry is a key of every result
    /// dictionary; `nil` fetches every attribute (or, when grouping, the ``propertiesToGroupBy``).
    public var propertiesToFetch: [any FetchableProperty]?
    /// Dictionary results only: what results are grouped by (names, key paths through to-one relationships,
    /// expressions). With groups or aggregates in ``propertiesToFetch``, each result is one group, and every
    /// fetched property that is not an aggregate must be one of these.
    public var propertiesToGroupBy: [any FetchableProperty]?
    /// Dictionary results with groups only: the condition a group's dictionary must meet (Core Data's
    /// `havingPredicate`), evaluated against the keys of the result dictionaries (`total > 60`).
    public var havingPredicate: ObjectPredicate?
    /// Dictionary results only: whether equal dictionaries come back once (the first, in sort order).
    public var returnsDistinctResults = false
    /// Relationship key paths whose destinations are read with the fetch, one query per key path and store, so
    /// that following them from the fetched objects asks no store (Core Data's cure for one query per object).
    ///
    /// Key paths go through to-one and to-many relationships and may have several hops (`room`, `persons`,
    /// `room.sessions`). Destinations come back as faults that hold their values. Ignored with a
    /// ``fetchBatchSize`` (objects then load a batch at a time).
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
        resultType = template.resultType
        relationshipKeyPathsForPrefetching = template.relationshipKeyPathsForPrefetching
    }

    /// The request as a `Sendable` value (without ``affectedStores``), as models store templates.
    ///
    /// Templates keep the key paths of ``propertiesToFetch`` (not its expressions), and no grouping.
    public var template: FetchRequestTemplate {
        var template = FetchRequestTemplate(
            entityName: entityName, predicate: predicate, sortKeys: sortKeys, fetchLimit: fetchLimit,
            fetchOffset: fetchOffset, includesSubentities: includesSubentities,
            includesPendingChanges: includesPendingChanges, returnsObjectsAsFaults: returnsObjectsAsFaults,
            propertiesToFetch: propertyNamesToFetch,
            relationshipKeyPathsForPrefetching: relationshipKeyPathsForPrefetching)
        template.resultType = resultType
        return template
    }

    /// The names of the properties to read for objects: the first component of each key path of
    /// ``propertiesToFetch``; `nil` reads all.
    var propertyNamesToFetch: [String]? {
        propertiesToFetch.map { properties in
            var seen: Set<String> = []
            return properties.compactMap { property in
                guard case .keyPath(let path) = property.fetchColumn,
                    let first = path.split(separator: ".").first.map(String.init), seen.insert(first).inserted
                else { return nil }
                return first
            }
        }
    }

    /// A copy for fetching objects: the same entity, predicate, stores and options, other result settings reset.
    func objectRequest() -> FetchRequest {
        let copy = FetchRequest(entityName: entityName)
        copy.predicate = predicate
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.affectedStores = affectedStores
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        return copy
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
    /// What comes back.
    public var resultType: FetchRequestResultType = .managedObject

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
