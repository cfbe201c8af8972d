/// What a fetch over a sorted order hands out: the order's record views and, for a walk over the whole order,
/// the object IDs in the same positions (read in sequence rather than from each view).
///
/// One instance per fetch, shared by its results and kept by the faults made from them until they fire (so an
/// unfired fault keeps the records of that order alive). Only `record`, an immutable value, is read from a view
/// then, never its store, which may be gone.
final class OrderRows: @unchecked Sendable {  // immutable
    let views: [RecordView]
    private let objectIDs: [ManagedObjectID]?

    init(views: [RecordView], objectIDs: [ManagedObjectID]?) {
        self.views = views
        self.objectIDs = objectIDs
    }

    /// The ID of the object at a position.
    func objectID(at index: Int) -> ManagedObjectID {
        if let objectIDs { return objectIDs[index] }
        return views[index].record.objectID
    }

    /// The record at a position.
    func record(at index: Int) -> StoreRecord { views[index].record }
}
