import Foundation

/// Where an ObjectGraph error happened: the entity, key, object and store involved, when known.
///
/// Values of attributes are never part of the context, so errors can be logged without leaking user data.
public struct ErrorContext: Sendable, Hashable, CustomStringConvertible {
    /// The entity involved, if any.
    public var entityName: String?
    /// The property involved, if any.
    public var key: String?
    /// The object involved, if any.
    public var objectID: ManagedObjectID?
    /// The store involved, if any.
    public var storeURL: URL?

    /// Creates a context; every field is optional.
    public init(entityName: String? = nil, key: String? = nil, objectID: ManagedObjectID? = nil, storeURL: URL? = nil) {
        self.entityName = entityName
        self.key = key
        self.objectID = objectID
        self.storeURL = storeURL
    }

    /// A short `entity=… key=… object=… store=…` rendering of the fields that are set.
    public var description: String {
        var parts: [String] = []
        if let entityName { parts.append("entity=\(entityName)") }
        if let key { parts.append("key=\(key)") }
        if let objectID { parts.append("object=\(objectID.uriRepresentation().absoluteString)") }
        if let storeURL { parts.append("store=\(storeURL.path)") }
        return parts.joined(separator: " ")
    }
}

/// A wrapper that lets any underlying error travel inside a `Sendable`, `Hashable` error value.
struct UnderlyingError: @unchecked Sendable {  // the wrapped error is only read, never mutated
    let error: any Error
}
