import Foundation

/// A ``FetchRequest`` whose results are known to be of one class: Core Data's `NSFetchRequest<ResultType>`.
///
/// Every setting of the request reads and writes through to the wrapped ``fetchRequest``
/// (`request.predicate = …`, `request.sortKeys = […]`), and `ManagedObjectContext.fetch(_:)` with a typed request
/// returns `[Result]`. The entity's objects must be of class `Result`: register the class with
/// ``ManagedObjectClassRegistry`` under the entity's class name (generated classes do it themselves).
@dynamicMemberLookup
public final class TypedFetchRequest<Result: ManagedObject> {
    /// The untyped request every setting goes to.
    public let fetchRequest: FetchRequest

    /// Creates a request for an entity whose objects are of class `Result`.
    public init(entityName: String) {
        fetchRequest = FetchRequest(entityName: entityName)
    }

    /// Wraps an existing request (shared, not copied).
    public init(_ fetchRequest: FetchRequest) {
        self.fetchRequest = fetchRequest
    }

    /// A setting of the wrapped request.
    public subscript<Value>(dynamicMember keyPath: ReferenceWritableKeyPath<FetchRequest, Value>) -> Value {
        get { fetchRequest[keyPath: keyPath] }
        set { fetchRequest[keyPath: keyPath] = newValue }
    }
}

extension ManagedObjectContext {
    /// The objects matching a typed request, as its class: ``fetch(_:)-(FetchRequest)`` with the results cast.
    ///
    /// - Throws: the errors of ``fetch(_:)-(FetchRequest)``; ``StoreError/Code/invalidFetchRequest`` when an object
    ///   fetched is not of class `T` (its entity's class is not registered, or is another class).
    public func fetch<T: ManagedObject>(_ request: TypedFetchRequest<T>) throws -> [T] {
        let objects = try fetch(request.fetchRequest)
        var typed: [T] = []
        typed.reserveCapacity(objects.count)
        for object in objects {
            guard let cast = object as? T else {
                throw StoreError(
                    code: .invalidFetchRequest,
                    message: "An object of entity '\(object.entity.name)' is a \(type(of: object)), not a \(T.self); "
                        + "register \(T.self) with ManagedObjectClassRegistry under the entity's class name.",
                    context: ErrorContext(entityName: object.entity.name, objectID: object.objectID))
            }
            typed.append(cast)
        }
        return typed
    }
}
