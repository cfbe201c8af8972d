/// What an entity mapping does (Core Data's `NSEntityMappingType`).
public enum EntityMappingType: Int, Sendable, Hashable, CaseIterable {
    /// Not yet decided; migrated like ``transform``.
    case undefined = 0
    /// Only the mapping's policy creates destination objects.
    case custom = 1
    /// The destination entity is new: no objects are migrated into it.
    case add = 2
    /// The source entity is gone: its objects are not migrated.
    case remove = 3
    /// Each source object is copied unchanged.
    case copy = 4
    /// Each source object becomes a destination object through the property mappings.
    case transform = 5
}

/// How the objects of one source entity become objects of one destination entity (Core Data's `NSEntityMapping`).
public final class EntityMapping: @unchecked Sendable {  // configured before a migration, then only read
    /// The mapping's name, by which value expressions refer to it (`destinationInstancesForEntityMappingNamed:`).
    public var name: String
    /// What the mapping does.
    public var mappingType: EntityMappingType
    /// The source entity; `nil` for ``EntityMappingType/add``.
    public var sourceEntityName: String?
    /// The destination entity; `nil` for ``EntityMappingType/remove``.
    public var destinationEntityName: String?
    /// How the destination attributes get their values.
    public var attributeMappings: [PropertyMapping]
    /// How the destination relationships get their values (in the second stage, once every object exists).
    public var relationshipMappings: [PropertyMapping]
    /// Which source objects to migrate; `nil` for every object of the source entity (sub-entities have mappings
    /// of their own). Mapping models write it as
    /// `FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "User", "age > 18")`.
    public var sourceExpression: ObjectExpression?
    /// The class name of the ``EntityMigrationPolicy`` subclass that migrates the objects, registered with
    /// `EntityMigrationPolicy.register(_:forClassName:)`; `nil` for the default policy.
    public var entityMigrationPolicyClassName: String?
    /// Free-form information, from the mapping model file or for a custom policy.
    public var userInfo: [String: any Sendable]

    /// Creates an entity mapping.
    public init(
        name: String, mappingType: EntityMappingType, sourceEntityName: String?,
        destinationEntityName: String?, attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [], sourceExpression: ObjectExpression? = nil,
        entityMigrationPolicyClassName: String? = nil, userInfo: [String: any Sendable] = [:]
    ) {
        self.name = name
        self.mappingType = mappingType
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.sourceExpression = sourceExpression
        self.entityMigrationPolicyClassName = entityMigrationPolicyClassName
        self.userInfo = userInfo
    }

    /// Creates an empty mapping (no name, type ``EntityMappingType/undefined``, no entities), to be set up property
    /// by property as Core Data's `NSEntityMapping()` is.
    public convenience init() {
        self.init(name: "", mappingType: .undefined, sourceEntityName: nil, destinationEntityName: nil)
    }

    /// The name Core Data gives a mapping between two entities: `SourceToDestination`.
    public static func defaultName(source: String?, destination: String?) -> String {
        (source ?? "") + "To" + (destination ?? "")
    }

    /// The attribute mappings by destination attribute name.
    public var attributeMappingsByName: [String: PropertyMapping] {
        Dictionary(attributeMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The relationship mappings by destination relationship name.
    public var relationshipMappingsByName: [String: PropertyMapping] {
        Dictionary(relationshipMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
