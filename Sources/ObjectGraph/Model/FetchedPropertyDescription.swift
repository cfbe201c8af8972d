import Foundation

/// A fetched property: a fetch request evaluated lazily for an object, with `$FETCH_SOURCE` bound to it.
///
/// Read it with ``ManagedObject/value(forKey:)``; the result is an array of managed objects, computed on first
/// access and cached until the object is refreshed.
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {  // frozen with its model
    /// The entity fetched.
    public var destinationEntityName: String { didSet { checkMutable() } }
    /// The predicate; `$FETCH_SOURCE` stands for the object that owns the property, `$FETCHED_PROPERTY` for this.
    public var predicate: ObjectPredicate? { didSet { checkMutable() } }
    /// The order of the results.
    public var sortKeys: [SortKey] = [] { didSet { checkMutable() } }

    /// Creates a fetched property.
    public init(name: String, destination: String, predicate: ObjectPredicate? = nil) {
        self.destinationEntityName = destination
        self.predicate = predicate
        super.init(name: name)
        self.isTransient = true
    }

    override var versionHashComponents: [String] { [] }
}
