import Foundation

/// A request that writes many new objects of one entity straight into a store, without managed objects or a
/// context: Core Data's `NSBatchInsertRequest`.
///
/// Each object is a dictionary of stored attribute values by name, or the values a handler sets on a managed object
/// it is handed (``managedObjectHandler``). Values are converted to the attribute's type as
/// ``ManagedObject/setValue(_:forKey:)`` converts them; attributes left unset get their default value.
/// The model's validation rules apply to every object: types, optionality, ranges, lengths, patterns and validation
/// predicates. Relationships cannot be set, as in Core Data. An object that shares a saved object's uniquely
/// constrained values fails the batch, or updates that object, by the merge policy (see
/// `PersistentStoreCoordinator/execute(_:mergePolicy:)`).
///
/// Execute it with `PersistentStoreCoordinator/execute(_:)` or `ManagedObjectContext/execute(_:)`. The objects
/// are written in one save to one store: either all of them or, when any fails, none. Contexts do not see the new
/// objects until they fetch; ask for ``ResultType/objectIDs`` to get them.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Session", objects: [
///     ["title": "Keynote", "start": keynoteStart],
///     ["title": "Lunch", "start": lunchStart],
/// ])
/// request.resultType = .objectIDs
/// let ids = try context.execute(request).objectIDs
/// ```
public final class BatchInsertRequest {
    /// What ``BatchInsertResult`` carries.
    public enum ResultType: Sendable, Hashable {
        /// The number of objects inserted only.
        case statusOnly
        /// The number of objects inserted (the same as ``statusOnly`` here: the count is always given).
        case count
        /// The number of objects and their permanent IDs, in insertion order.
        case objectIDs
    }

    /// The entity of the new objects; it must not be abstract.
    public let entityName: String
    /// The values of the objects to insert, one dictionary per object. Takes precedence over
    /// ``dictionaryHandler``.
    public var objectsToInsert: [[String: any Sendable]]?
    /// Called over and over with an empty dictionary to fill with the next object's values; returns `true` when
    /// there are no more objects (the dictionary of that call is not inserted). Takes precedence over
    /// ``managedObjectHandler``.
    public var dictionaryHandler: ((inout [String: any Sendable]) -> Bool)?
    /// Called over and over with one managed object of the entity (an instance of its registered class, in no
    /// context) to set the next object's attribute values on, with ``ManagedObject/setValue(_:forKey:)`` or a
    /// subclass's typed properties; returns `true` when there are no more objects (the values of that call are not
    /// inserted). Before each call the object's attributes are back at their default values. Setting a
    /// relationship fails the request, and the object must not be inserted into a context or kept.
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    /// What the result carries; ``ResultType/statusOnly`` by default.
    public var resultType: ResultType = .statusOnly
    /// The stores the objects may go to, the first writable one whose configuration holds the entity taken; `nil`
    /// routes them as a context's save routes new objects.
    public var affectedStores: [PersistentStore]?

    /// A request that inserts one object per dictionary.
    public init(entityName: String, objects: [[String: any Sendable]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// A request that inserts the objects a handler describes, one per call, until it returns `true`.
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: any Sendable]) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }

    /// A request that inserts the objects a handler sets on the managed object it is handed, one per call, until
    /// it returns `true`.
    ///
    /// ```swift
    /// var rows = parsedSessions.makeIterator()
    /// let request = BatchInsertRequest(entityName: "Session", managedObjectHandler: { session in
    ///     guard let row = rows.next() else { return true }
    ///     session.setValue(row.title, forKey: "title")
    ///     session.setValue(row.start, forKey: "start")
    ///     return false
    /// })
    /// ```
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }
}

/// What a ``BatchInsertRequest`` did.
public struct BatchInsertResult: Sendable {
    /// What the request asked for.
    public var resultType: BatchInsertRequest.ResultType
    /// How many objects were inserted.
    public var count: Int
    /// The permanent IDs of the new objects, in the order they were given, when the request asked for
    /// ``BatchInsertRequest/ResultType/objectIDs``; otherwise `nil`.
    public var objectIDs: [ManagedObjectID]?
}
