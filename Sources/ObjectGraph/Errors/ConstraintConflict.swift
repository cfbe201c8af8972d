/// Objects that would share the values of a uniqueness constraint (Core Data's `NSConstraintConflict`).
///
/// An entity's ``EntityDescription/uniquenessConstraints`` hold for the entity and its sub-entities together, in
/// each store: no two of their objects in one store may have equal values for every attribute of a constraint. An
/// object with no value for one of them is not constrained.
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares the constraint.
    public var entityName: String
    /// The constrained attributes.
    public var constraint: [String]
    /// The constrained values the objects share, as text.
    public var values: [String]
    /// The saved object that already has these values, when there is one that the save does not change.
    public var databaseObjectID: ManagedObjectID?
    /// The objects of the save that have these values, in the order the save lists them.
    public var conflictingObjectIDs: [ManagedObjectID]
    /// The constrained values the objects share, by attribute (Core Data's `constraintValues`).
    public var constraintValues: [String: any Sendable] = [:]
    /// The saved object's values as its store holds them, when there is one (Core Data's `databaseSnapshot`).
    public var databaseSnapshot: [String: any Sendable]?
    /// The values each object of ``conflictingObjectIDs`` would have saved, in the same order (Core Data's
    /// `conflictingSnapshots`). Relationships hold object IDs.
    public var conflictingSnapshots: [[String: any Sendable]] = []

    /// Creates a conflict.
    public init(entityName: String, constraint: [String], values: [String], databaseObjectID: ManagedObjectID?,
                conflictingObjectIDs: [ManagedObjectID]) {
        self.entityName = entityName
        self.constraint = constraint
        self.values = values
        self.databaseObjectID = databaseObjectID
        self.conflictingObjectIDs = conflictingObjectIDs
    }

    /// Conflicts compare by entity, constraint, values and objects (the snapshots are not compared).
    public static func == (lhs: ConstraintConflict, rhs: ConstraintConflict) -> Bool {
        lhs.entityName == rhs.entityName && lhs.constraint == rhs.constraint && lhs.values == rhs.values
            && lhs.databaseObjectID == rhs.databaseObjectID && lhs.conflictingObjectIDs == rhs.conflictingObjectIDs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entityName)
        hasher.combine(constraint)
        hasher.combine(values)
        hasher.combine(databaseObjectID)
        hasher.combine(conflictingObjectIDs)
    }

    public var description: String {
        let pairs = zip(constraint, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let count = conflictingObjectIDs.count + (databaseObjectID == nil ? 0 : 1)
        return "\(count) '\(entityName)' objects with \(pairs)"
            + (databaseObjectID == nil ? "" : ", one of them already saved")
    }
}
