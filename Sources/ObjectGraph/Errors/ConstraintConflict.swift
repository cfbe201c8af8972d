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

    /// Creates a conflict.
    public init(entityName: String, constraint: [String], values: [String], databaseObjectID: ManagedObjectID?,
                conflictingObjectIDs: [ManagedObjectID]) {
        self.entityName = entityName
        self.constraint = constraint
        self.values = values
        self.databaseObjectID = databaseObjectID
        self.conflictingObjectIDs = conflictingObjectIDs
    }

    public var description: String {
        let pairs = zip(constraint, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let count = conflictingObjectIDs.count + (databaseObjectID == nil ? 0 : 1)
        return "\(count) '\(entityName)' objects with \(pairs)"
            + (databaseObjectID == nil ? "" : ", one of them already saved")
    }
}
