import Foundation

/// What a ``FetchedResultsController`` tells about changes of its results (Core Data's
/// `NSFetchedResultsControllerDelegate`), each method optional.
///
/// After each change of the context that touches the results (``ManagedObjectContext/processPendingChanges()``, a
/// save, a merge), in the context's isolation domain: ``controllerWillChangeContent(_:)``, the section changes
/// (deletes, then inserts), the object changes (deletes, inserts, moves, updates), ``controllerDidChangeContent(_:)``
/// and ``controller(_:didChangeContentWith:)`` with the same as one ``FetchedResultsUpdate``. Applied in one batch,
/// the per-object changes turn the old sections into the new ones, as a table view's batch updates do.
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    /// The class of the controller's objects.
    associatedtype Result: ManagedObject

    /// Changes are about to be reported.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)
    /// An object was inserted, deleted, moved or updated; `indexPath` is where it was, `newIndexPath` where it is.
    func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section appeared (`.insert`, its new index) or vanished (`.delete`, its old index).
    func controller(
        _ controller: FetchedResultsController<Result>,
        didChange sectionInfo: FetchedResultsSectionInfo<Result>, atSectionIndex sectionIndex: Int,
        for type: FetchedResultsChangeType)
    /// Every change of this round was reported.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
    /// The round as one update: the snapshot difference of the object IDs, with the object and section changes.
    func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith update: FetchedResultsUpdate)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result,
        at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    public func controller(
        _ controller: FetchedResultsController<Result>,
        didChange sectionInfo: FetchedResultsSectionInfo<Result>, atSectionIndex sectionIndex: Int,
        for type: FetchedResultsChangeType
    ) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
    public func controller(
        _ controller: FetchedResultsController<Result>,
        didChangeContentWith update: FetchedResultsUpdate
    ) {}
}
