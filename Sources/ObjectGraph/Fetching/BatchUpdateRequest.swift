import Foundation

/// A request that sets attributes of every object of an entity a predicate matches, without the caller's context:
/// Core Data's `NSBatchUpdateRequest`.
///
/// Each value is converted to its attribute's type as ``ManagedObject/setValue(_:forKey:)`` converts it; an
/// ``ObjectExpression`` is evaluated against each object first (`duration + 5`). The objects are changed and saved
/// in one save through a private context, so the model's validation rules and uniqueness constraints apply: when
/// any object fails, nothing is written. Relationships cannot be set. Contexts that hold the objects are not
/// changed; save observers hear of the updates.
///
/// Unlike Core Data's, which issues SQL without loading the objects, this one costs what changing the objects
/// through a context costs.
public final class BatchUpdateRequest {
    /// What ``BatchUpdateResult`` carries.
    public enum ResultType: Sendable, Hashable {
        /// The number of objects updated only.
        case statusOnly
        /// The number of objects updated (the same as ``statusOnly`` here).
        case count
        /// The number of objects updated and their IDs.
        case objectIDs
    }

    /// The entity of the objects.
    public let entityName: String
    /// Which objects; `nil` updates them all.
    public var predicate: ObjectPredicate?
    /// Whether objects of sub-entities are updated too; `true` by default.
    public var includesSubentities = true
    /// The new values by attribute name: values, `nil`, or ``ObjectExpression``s evaluated against each object.
    public var propertiesToUpdate: [String: (any Sendable)?] = [:]
    /// What the result carries; ``ResultType/statusOnly`` by default.
    public var resultType: ResultType = .statusOnly
    /// The stores whose objects are updated; `nil` for all.
    public var affectedStores: [PersistentStore]?

    /// A request that updates objects of an entity.
    public init(entityName: String) {
        self.entityName = entityName
    }
}

/// What a ``BatchUpdateRequest`` did.
public struct BatchUpdateResult: Sendable {
    /// What the request asked for.
    public var resultType: BatchUpdateRequest.ResultType
    /// How many objects the predicate matched, each given the new values.
    public var count: Int
    /// Their IDs, when the request asked for ``BatchUpdateRequest/ResultType/objectIDs``.
    public var objectIDs: [ManagedObjectID]?
}
