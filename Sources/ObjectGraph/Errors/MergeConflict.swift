/// An object that changed in its store since the context read it (an optimistic-locking conflict), as a save with
/// ``MergePolicy/error`` reports it in ``StoreError/mergeConflicts`` (Core Data's `NSMergeConflict`).
///
/// As in Core Data, the snapshots hold every stored attribute and to-one relationship (as a ``ManagedObjectID``),
/// not to-many relationships; a key without a value is absent. Values are not printed in the description.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The conflicting object.
    public var sourceObjectID: ManagedObjectID
    /// The object's values in the context, with its unsaved changes; empty for an object the context deleted.
    public var objectSnapshot: [String: any Sendable]
    /// The object's values as the context last read them (before its unsaved changes).
    public var cachedSnapshot: [String: any Sendable]
    /// The object's values in the store now; `nil` when another context deleted it.
    public var persistedSnapshot: [String: any Sendable]?
    /// The version the store holds now (0 when the object was deleted there).
    public var newVersionNumber: Int
    /// The version the context read.
    public var oldVersionNumber: Int

    /// Creates a conflict.
    public init(
        sourceObjectID: ManagedObjectID, objectSnapshot: [String: any Sendable],
        cachedSnapshot: [String: any Sendable], persistedSnapshot: [String: any Sendable]?,
        newVersionNumber: Int, oldVersionNumber: Int
    ) {
        self.sourceObjectID = sourceObjectID
        self.objectSnapshot = objectSnapshot
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        self.newVersionNumber = newVersionNumber
        self.oldVersionNumber = oldVersionNumber
    }

    public var description: String {
        let state = persistedSnapshot == nil ? "deleted in the store" : "version \(newVersionNumber) in the store"
        return "'\(sourceObjectID.entityName)' \(sourceObjectID.uriRepresentation().absoluteString): read at version "
            + "\(oldVersionNumber), \(state)"
    }
}
