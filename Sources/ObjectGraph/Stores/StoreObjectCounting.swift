/// A store that knows how many objects it holds without a query, such as the atomic stores, which keep every
/// record in memory.
///
/// Code that reports on many kinds of store (the daemon's `stores` listing) asks through this protocol and counts
/// with fetch requests for stores that do not adopt it. Read ``objectCount`` as a read: inside the coordinator's
/// ``PersistentStoreCoordinator/performReading(_:)``, or where no save can run beside it.
public protocol StoreObjectCounting: PersistentStore {
    /// How many objects the store holds, of every entity. Complexity: O(1).
    var objectCount: Int { get }
}
