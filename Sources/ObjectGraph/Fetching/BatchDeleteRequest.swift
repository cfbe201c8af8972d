import Foundation

/// A request that deletes every object a fetch request matches, or the objects of a list of IDs, without the
/// caller's context: Core Data's `NSBatchDeleteRequest`.
///
/// Execute it with ``PersistentStoreCoordinator/execute(_:mergePolicy:)-(BatchDeleteRequest,_)`` or
/// ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)``. The objects are deleted in one save, through a private
/// context, so the model's delete rules apply as when a context deletes them: cascades delete related objects,
/// nullify removes them from their inverses, and deny fails the request (nothing is deleted then). Contexts that
/// hold the objects are not changed; save observers hear of the deletions.
///
/// Unlike Core Data's, which issues SQL without loading the objects, this one costs what deleting the objects
/// through a context costs.
///
/// ```swift
/// let old = FetchRequest(entityName: "Note")
/// old.predicate = try ObjectPredicate(format: "createdAt < %@", cutoff)
/// let result = try context.execute(BatchDeleteRequest(fetchRequest: old))
/// ```
public final class BatchDeleteRequest {
    /// What ``BatchDeleteResult`` carries.
    public enum ResultType: Sendable, Hashable {
        /// The number of objects deleted only.
        case statusOnly
        /// The number of objects deleted (the same as ``statusOnly`` here: the count is always given).
        case count
        /// The number of objects deleted and their IDs.
        case objectIDs
    }

    /// The objects to delete, when given by a fetch request: its entity (with sub-entities unless excluded),
    /// predicate, sort, offset, limit and affected stores apply.
    public let fetchRequest: FetchRequest?
    /// The objects to delete, when given by ID.
    public let objectIDs: [ManagedObjectID]?
    /// What the result carries; ``ResultType/statusOnly`` by default.
    public var resultType: ResultType = .statusOnly

    /// A request that deletes the objects a fetch request matches.
    public init(fetchRequest: FetchRequest) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
    }

    /// A request that deletes the objects of these IDs.
    public init(objectIDs: [ManagedObjectID]) {
        self.fetchRequest = nil
        self.objectIDs = objectIDs
    }
}

/// What a ``BatchDeleteRequest`` did.
public struct BatchDeleteResult: Sendable {
    /// What the request asked for.
    public var resultType: BatchDeleteRequest.ResultType
    /// How many of the requested objects were deleted (objects deleted by a cascade are not counted).
    public var count: Int
    /// The IDs of the requested objects, when the request asked for ``BatchDeleteRequest/ResultType/objectIDs``.
    public var objectIDs: [ManagedObjectID]?
}
