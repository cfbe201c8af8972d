import Foundation

/// What a fetch returns (Core Data's `NSFetchRequestResultType`).
public enum FetchRequestResultType: Sendable, Hashable, CaseIterable {
    /// Managed objects, registered in the context (the default).
    case managedObject
    /// The objects' IDs only.
    case managedObjectID
    /// One dictionary per object, or per group with ``FetchRequest/propertiesToGroupBy`` or aggregates, keyed by
    /// property name (see ``FetchRequest/propertiesToFetch``).
    case dictionary
    /// The number of matching objects.
    case count
}

/// The result of ``ManagedObjectContext/execute(_:)-(FetchRequest)``, shaped by the request's
/// ``FetchRequest/resultType``.
public enum FetchResult {
    /// Managed objects (``FetchRequestResultType/managedObject``).
    case objects([ManagedObject])
    /// Object IDs (``FetchRequestResultType/managedObjectID``).
    case objectIDs([ManagedObjectID])
    /// Dictionaries (``FetchRequestResultType/dictionary``).
    case dictionaries([[String: any Sendable]])
    /// A count (``FetchRequestResultType/count``).
    case count(Int)
}
