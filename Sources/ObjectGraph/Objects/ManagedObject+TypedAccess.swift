import Foundation

/// A Swift type that an attribute's values read as in a typed property (what the classes `ObjectGraphCodegen`
/// generates declare): the attribute's canonical value (see ``AttributeType``) converted to the property's type.
///
/// `Int16`, `Int32`, `Int64` and `Int` read integer attributes (whose values are kept as `Int`); the other
/// conformances are the canonical types themselves.
public protocol AttributeValue {
    /// The value of this type that a stored canonical value reads as, or `nil` when it has another type or does
    /// not fit.
    init?(attributeValue: Any)
}

extension AttributeValue {
    /// A value of this type, as it is.
    public init?(attributeValue: Any) {
        guard let value = attributeValue as? Self else { return nil }
        self = value
    }
}

extension AttributeValue where Self: FixedWidthInteger {
    /// An integer attribute's value (kept as `Int`), when it fits this type.
    public init?(attributeValue: Any) {
        guard let value = attributeValue as? Int else { return nil }
        self.init(exactly: value)
    }
}

extension Int16: AttributeValue {}
extension Int32: AttributeValue {}
extension Int64: AttributeValue {}
extension Int: AttributeValue {}
extension Double: AttributeValue {}
extension Float: AttributeValue {}
extension Decimal: AttributeValue {}
extension Bool: AttributeValue {}
extension String: AttributeValue {}
extension Date: AttributeValue {}
extension Data: AttributeValue {}
extension UUID: AttributeValue {}
extension URL: AttributeValue {}
extension ManagedObjectID: AttributeValue {}

// Typed reads for the properties of generated classes (Core Data's `@NSManaged` accessors). Writes go through
// ``ManagedObject/setValue(_:forKey:)``, which converts and tracks them.
extension ManagedObject {
    /// The value of an attribute as `T`; `nil` when the attribute has none.
    ///
    /// - Precondition: the entity has the attribute, and its value reads as `T` (see ``AttributeValue``).
    public func attributeValue<T: AttributeValue>(forKey key: String, as type: T.Type = T.self) -> T? {
        guard let value = value(forKey: key) else { return nil }
        guard let typed = T(attributeValue: value) else {
            preconditionFailure(
                "attribute '\(key)' of '\(entity.name)' holds a \(Swift.type(of: value)), not a \(T.self)")
        }
        return typed
    }

    /// The value of a non-optional attribute as `T`.
    ///
    /// - Precondition: the attribute has a value: a non-optional attribute without a default value must be set
    ///   before it is read (as a non-optional `@NSManaged` property must in Core Data).
    public func requiredAttributeValue<T: AttributeValue>(forKey key: String, as type: T.Type = T.self) -> T {
        guard let value = attributeValue(forKey: key, as: T.self) else {
            preconditionFailure("non-optional attribute '\(key)' of '\(entity.name)' was read before it was set")
        }
        return value
    }

    /// The destination of a to-one relationship as `T`.
    ///
    /// - Precondition: the destination's class is `T` or a subclass (its entity's class is registered, see
    ///   ``ManagedObjectClassRegistry``).
    public func relatedObject<T: ManagedObject>(forKey key: String, as type: T.Type = T.self) -> T? {
        guard let object = value(forKey: key) as? ManagedObject else { return nil }
        return Self.cast(object, to: T.self, key: key)
    }

    /// The destinations of a to-many relationship as `T`, in the relationship's order for ordered ones.
    ///
    /// - Precondition: as for ``relatedObject(forKey:as:)``.
    public func relatedObjects<T: ManagedObject>(forKey key: String, as type: T.Type = T.self) -> [T] {
        objects(forKey: key).map { Self.cast($0, to: T.self, key: key) }
    }

    /// The results of a fetched property as `T`, in the property's sort order: fetched when first read and kept
    /// until the object is refreshed or turned into a fault (see ``FetchedPropertyDescription``).
    ///
    /// - Precondition: the entity has a fetched property named `key`, and its results' class is `T` or a subclass.
    public func fetchedObjects<T: ManagedObject>(forKey key: String, as type: T.Type = T.self) -> [T] {
        guard let property = entity.propertiesByName[key] as? FetchedPropertyDescription else {
            preconditionFailure("entity '\(entity.name)' has no fetched property named '\(key)'")
        }
        return fetchedValue(property).map { Self.cast($0, to: T.self, key: key) }
    }

    private static func cast<T: ManagedObject>(_ object: ManagedObject, to type: T.Type, key: String) -> T {
        guard let typed = object as? T else {
            preconditionFailure(
                "'\(key)' holds an object of entity '\(object.entity.name)' of class "
                    + "\(Swift.type(of: object)), not \(T.self): register the entity's class with "
                    + "ManagedObjectClassRegistry")
        }
        return typed
    }
}
