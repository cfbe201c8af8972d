import Foundation

/// What happened to an object or a section of a ``FetchedResultsController`` (Core Data's
/// `NSFetchedResultsChangeType`).
public enum FetchedResultsChangeType: Sendable, Hashable {
    /// It entered the results.
    case insert
    /// It left the results.
    case delete
    /// It changed place (its old and new index paths are given).
    case move
    /// It changed and kept its place among the objects around it.
    case update
}

/// One object's change in one ``FetchedResultsUpdate``, by ID: `Sendable`, for other isolation domains.
public struct FetchedResultsObjectChange: Sendable, Hashable {
    /// What happened.
    public var type: FetchedResultsChangeType
    /// The object's ID now (a new object's saved by the change has its permanent ID here).
    public var objectID: ManagedObjectID
    /// Where the object was (delete, move, update); `nil` for an insert.
    public var indexPath: IndexPath?
    /// Where the object is now (insert, move, update); `nil` for a delete.
    public var newIndexPath: IndexPath?
    /// Where the object was in ``FetchedResultsController/fetchedObjects``, as ``indexPath`` across sections.
    public var offset: Int?
    /// Where the object is in ``FetchedResultsController/fetchedObjects``, as ``newIndexPath`` across sections.
    public var newOffset: Int?

    /// Creates a change.
    public init(
        type: FetchedResultsChangeType, objectID: ManagedObjectID, indexPath: IndexPath?,
        newIndexPath: IndexPath?, offset: Int?, newOffset: Int?
    ) {
        self.type = type
        self.objectID = objectID
        self.indexPath = indexPath
        self.newIndexPath = newIndexPath
        self.offset = offset
        self.newOffset = newOffset
    }
}

/// A section that appeared or vanished in one ``FetchedResultsUpdate``.
public struct FetchedResultsSectionChange: Sendable, Hashable {
    /// ``FetchedResultsChangeType/insert`` or ``FetchedResultsChangeType/delete``.
    public var type: FetchedResultsChangeType
    /// The section's name.
    public var name: String
    /// Its index: in the old sections for a delete, in the new ones for an insert.
    public var sectionIndex: Int

    /// Creates a change.
    public init(type: FetchedResultsChangeType, name: String, sectionIndex: Int) {
        self.type = type
        self.name = name
        self.sectionIndex = sectionIndex
    }
}

/// Everything one change of the context did to a controller's results: the snapshot difference and the same as
/// Core Data's per-object and per-section changes.
public struct FetchedResultsUpdate: Sendable, Hashable {
    /// How the IDs of ``FetchedResultsController/fetchedObjects`` changed: applied to the IDs before
    /// (`before.applying(difference)`), it gives the IDs after. Moves are associated removals and insertions. An
    /// object saved for the first time is a removal of its temporary ID and an insertion of its permanent one.
    public var difference: CollectionDifference<ManagedObjectID>
    /// The objects' changes, in the order the delegate hears them: deletes, inserts, moves, then updates.
    public var objectChanges: [FetchedResultsObjectChange]
    /// Sections that vanished (old indexes) and appeared (new indexes); deletes first.
    public var sectionChanges: [FetchedResultsSectionChange]
}

extension IndexPath {
    /// An index path of an object in a section: `[section, item]`, as UIKit's and AppKit's.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// An index path of a row in a section, the same as `init(item:section:)`.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index.
    public var section: Int { self[0] }
    /// The object's position in its section: the second index.
    public var item: Int { self[1] }
    /// The same as `item`.
    public var row: Int { self[1] }
}
