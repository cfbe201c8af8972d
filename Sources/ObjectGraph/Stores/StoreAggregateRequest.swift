import Foundation

/// A grouped aggregate fetch as the coordinator hands it to one store (see
/// ``PersistentStore/aggregate(_:)``): the objects matching the predicate, grouped by the values of key paths, with
/// the partial aggregates each group needs.
///
/// The store answers partials rather than final values so that the results of several stores combine exactly:
/// sums of sums, counts of counts, the least of the minimums, averages from sums and counts.
public struct StoreAggregateRequest: @unchecked Sendable {  // EntityDescription is immutable once its model is frozen
    /// The fetched entity.
    public var entity: EntityDescription
    /// The names of the entities whose instances match.
    public var entityNames: Set<String>
    /// The condition; `nil` matches every object.
    public var predicate: ObjectPredicate?
    /// The key paths (attributes, or attributes through to-one relationships) whose values make a group; empty:
    /// one group of every matching object (when some match).
    public var groupKeyPaths: [String]
    /// The aggregates each group needs.
    public var aggregates: [StoreAggregate]

    /// Creates a request.
    public init(
        entity: EntityDescription, entityNames: Set<String>, predicate: ObjectPredicate?,
        groupKeyPaths: [String], aggregates: [StoreAggregate]
    ) {
        self.entity = entity
        self.entityNames = entityNames
        self.predicate = predicate
        self.groupKeyPaths = groupKeyPaths
        self.aggregates = aggregates
    }
}

/// One aggregate of a ``StoreAggregateRequest``: a function over the values of a key path.
public struct StoreAggregate: Sendable, Hashable {
    /// An aggregate function.
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// The sum of the values (`sum:`, `@sum`).
        case sum
        /// The mean of the values (`average:`, `@avg`).
        case average
        /// The least value (`min:`, `@min`).
        case min
        /// The greatest value (`max:`, `@max`).
        case max
        /// How many values are not nil, or how many objects without a key path (`count:`, `@count`).
        case count
    }

    /// The function.
    public var function: Function
    /// The key path whose values are aggregated; `nil` for a count of objects.
    public var keyPath: String?

    /// Creates an aggregate.
    public init(function: Function, keyPath: String?) {
        self.function = function
        self.keyPath = keyPath
    }
}

/// What one store holds for one aggregate of one group.
public struct AggregatePartial: Sendable {
    /// How many values are not nil (objects, for an aggregate without a key path).
    public var count: Int
    /// The sum of the values (for ``StoreAggregate/Function/sum`` and ``StoreAggregate/Function/average``).
    public var sum: (any Sendable)?
    /// The least value (for ``StoreAggregate/Function/min``).
    public var minimum: (any Sendable)?
    /// The greatest value (for ``StoreAggregate/Function/max``).
    public var maximum: (any Sendable)?

    /// Creates a partial.
    public init(
        count: Int, sum: (any Sendable)? = nil, minimum: (any Sendable)? = nil,
        maximum: (any Sendable)? = nil
    ) {
        self.count = count
        self.sum = sum
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// One group of a store's answer to a ``StoreAggregateRequest``.
public struct StoreAggregateRow: Sendable {
    /// The group's values of ``StoreAggregateRequest/groupKeyPaths``, in order (a to-one relationship's value is
    /// the destination's ``ManagedObjectID``).
    public var groupValues: [(any Sendable)?]
    /// The partials of ``StoreAggregateRequest/aggregates``, in order.
    public var partials: [AggregatePartial]

    /// Creates a row.
    public init(groupValues: [(any Sendable)?], partials: [AggregatePartial]) {
        self.groupValues = groupValues
        self.partials = partials
    }
}
