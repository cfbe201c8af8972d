/// The steps that migrate the objects of one entity mapping (Core Data's `NSEntityMigrationPolicy`).
///
/// The default policy creates one destination object per source object with the attribute mappings, then sets
/// the relationships with the relationship mappings. Subclass it to change a step (split one attribute into two,
/// merge objects), register the subclass under the class name the entity mapping names, and call `super` or
/// ``MigrationManager/associate(sourceInstance:withDestinationInstance:for:)`` so that relationships find the new
/// objects:
///
/// ```swift
/// final class SplitNamePolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
///                                              manager: MigrationManager) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let parts = (source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///         for destination in manager.destinationInstances(forEntityMappingNamed: mapping.name,
///                                                         sourceInstances: [source]) {
///             destination.setValue(parts.first.map(String.init), forKey: "firstName")
///             destination.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
///         }
///     }
/// }
/// EntityMigrationPolicy.register(SplitNamePolicy.self, forClassName: "App.SplitNamePolicy")
/// ```
open class EntityMigrationPolicy {
    /// Creates a policy; the manager creates one per entity mapping and migration.
    public required init() {}

    /// Called before the first object of the mapping is migrated.
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Creates the destination objects of one source object: by default one object of the destination entity with
    /// every attribute mapping's value, associated with the source object. Does nothing for ``EntityMappingType/add``,
    /// ``EntityMappingType/remove`` and ``EntityMappingType/custom`` mappings.
    ///
    /// - Throws: ``MigrationError/Code/expressionFailed`` when a value expression fails or gives a value the
    ///   attribute cannot hold.
    open func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping,
        manager: MigrationManager
    ) throws {
        guard let entityName = mapping.destinationEntityName,
            mapping.mappingType != .add, mapping.mappingType != .remove, mapping.mappingType != .custom
        else { return }
        let destination = manager.destinationContext.insertNewObject(forEntityName: entityName)
        for property in mapping.attributeMappings {
            guard let expression = property.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, mapping: mapping, policy: self)
            try manager.setValue(value, forKey: property.name, of: destination, mapping: mapping)
        }
        manager.associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every source object of the mapping has its destination objects.
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Sets the relationships of one destination object from the relationship mappings, evaluated with `$source`
    /// bound to its source object.
    open func createRelationships(
        forDestination destination: ManagedObject, in mapping: EntityMapping,
        manager: MigrationManager
    ) throws {
        let source = manager.sourceInstances(forEntityMappingNamed: mapping.name, destinationInstances: [destination])
            .first
        for property in mapping.relationshipMappings {
            guard let expression = property.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: source, mapping: mapping, policy: self)
            try manager.setValue(value, forKey: property.name, of: destination, mapping: mapping)
        }
    }

    /// Called after every destination object of the mapping has its relationships.
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Checks the destination objects beyond the model's validation; throw to fail the migration.
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called when the mapping is done.
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a value expression: override to provide
    /// the policy's own functions (Core Data calls the policy's Objective-C method of that selector).
    ///
    /// The default knows none and throws ``MigrationError/Code/expressionFailed``.
    open func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        throw MigrationError(
            code: .expressionFailed,
            message: "The entity migration policy \(type(of: self)) has no function '\(selector)'; "
                + "override value(forFunction:arguments:manager:) to provide it.")
    }

    // MARK: Registry

    private static let registry = LockedValue<[String: EntityMigrationPolicy.Type]>([:])

    /// Registers a policy class under the class name entity mappings give in `entityMigrationPolicyClassName`
    /// (Xcode writes the module-qualified name, such as `App.CustomMigrationPolicy`).
    public static func register(_ policyClass: EntityMigrationPolicy.Type, forClassName name: String) {
        registry.withLock { $0[name] = policyClass }
    }

    /// The policy class registered under a name: the name as given, else its last dotted component.
    public static func policyClass(forClassName name: String) -> EntityMigrationPolicy.Type? {
        registry.withLock { classes in
            classes[name] ?? name.split(separator: ".").last.flatMap { classes[String($0)] }
        }
    }
}
