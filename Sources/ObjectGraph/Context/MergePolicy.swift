/// What a save does when objects changed in their store since the context read them (optimistic locking), and when
/// new objects break a uniqueness constraint (see ``EntityDescription/uniquenessConstraints``): Core Data's merge
/// policies, with their semantics.
///
/// **Optimistic locking.** Each saved object carries a version; a save of an object whose version in the store moved
/// on since the context read it is a conflict. ``error`` fails the save; the by-property policies merge the two
/// versions property by property (a property changed on one side only takes that side's value; one changed on both
/// takes the store's value under ``mergeByPropertyStoreTrump`` and the context's under
/// ``mergeByPropertyObjectTrump``); ``overwrite`` writes the context's whole object over the store's; ``rollback``
/// drops the context's changes to the object. An object the context deleted stays deleted under every policy but
/// ``rollback``; an object changed in the context but deleted in the store is inserted again under
/// ``mergeByPropertyObjectTrump`` and ``overwrite``, and leaves the context under the other two.
///
/// **Uniqueness constraints.** Objects sharing constrained values are merged into one: the saved object, else the
/// first new one, survives and takes the others' relationships; with ``mergeByPropertyObjectTrump`` and
/// ``overwrite`` it takes their attribute values too (the last one's: an "upsert"), with
/// ``mergeByPropertyStoreTrump`` and ``rollback`` it keeps its own. The others are deleted. A saved object changed
/// into another saved object's values cannot be resolved: that save fails whatever the policy.
///
/// Child contexts (``ManagedObjectContext/init(parent:)``) have no conflicts with their parent: a child's save sets
/// the properties it changed on the parent's objects.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// The save fails with ``StoreError/Code/mergeConflict`` (``StoreError/mergeConflicts`` describes each object)
    /// or ``StoreError/Code/constraintConflict`` (``StoreError/constraintConflicts``); nothing is written and the
    /// context keeps its changes. The default.
    case error
    /// Conflicts are merged property by property; where both sides changed a property, the store's value wins
    /// (Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// Conflicts are merged property by property; where both sides changed a property, the context's value wins
    /// (Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// The context's whole object is written over the store's: changes made in the store to other properties are
    /// lost (Core Data's `NSOverwriteMergePolicy`).
    case overwrite
    /// The context's changes to conflicting objects are dropped and the store's version is kept; the rest of the
    /// save goes through (Core Data's `NSRollbackMergePolicy`).
    case rollback

    /// Whether new objects' attribute values win over a saved object's when they share constrained values.
    var keepsInMemoryValues: Bool { self == .mergeByPropertyObjectTrump || self == .overwrite }
}
