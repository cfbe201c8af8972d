extension MappingModel {
    /// The mapping lightweight migration uses, inferred from two models as Core Data infers it.
    ///
    /// A destination entity maps from the source entity of the same name, or of the name in its
    /// `renamingIdentifier`; properties likewise. Attributes get `$source.NAME`; relationships get
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "NAME", $source.NAME)`.
    /// An unchanged entity is a ``EntityMappingType/copy``, a changed one a ``EntityMappingType/transform``, a new
    /// one an ``EntityMappingType/add`` and a source entity without destination a ``EntityMappingType/remove``.
    /// Mappings come in the order of the destination model's entities, removals last.
    ///
    /// - Throws: ``MigrationError/Code/invalidMappingModel`` when the change cannot be inferred: an attribute whose
    ///   type changed between types that do not convert (numbers to numbers, anything to a string do), or a new
    ///   mandatory attribute without a default value.
    public static func inferredMappingModel(
        forSourceModel source: ManagedObjectModel,
        destinationModel destination: ManagedObjectModel
    ) throws -> MappingModel {
        let sources = source.entitiesByName
        var mapped: Set<String> = []
        var mappings: [EntityMapping] = []
        for entity in destination.entities {
            let sourceEntity =
                sources[entity.name]
                ?? entity.renamingIdentifier.flatMap { sources[$0] }
            guard let sourceEntity else {
                mappings.append(
                    EntityMapping(
                        name: EntityMapping.defaultName(source: nil, destination: entity.name),
                        mappingType: .add, sourceEntityName: nil,
                        destinationEntityName: entity.name))
                continue
            }
            mapped.insert(sourceEntity.name)
            let mapping = EntityMapping(
                name: EntityMapping.defaultName(
                    source: sourceEntity.name,
                    destination: entity.name),
                mappingType: sourceEntity.versionHash == entity.versionHash ? .copy : .transform,
                sourceEntityName: sourceEntity.name, destinationEntityName: entity.name)
            guard !entity.isAbstract else {
                mapping.mappingType = .remove  // no instances of its own to migrate; sub-entities have mappings
                mapping.destinationEntityName = nil
                mappings.append(mapping)
                continue
            }
            for property in entity.allProperties where !property.isTransient {
                let counterpart =
                    sourceEntity.propertiesByName[property.name]
                    ?? property.renamingIdentifier.flatMap { sourceEntity.propertiesByName[$0] }
                switch property {
                case let attribute as AttributeDescription:
                    guard let old = counterpart as? AttributeDescription, !old.isTransient else {
                        if !attribute.isOptional, attribute.defaultValue == nil {
                            throw cannotInfer(entity, attribute, "is new and mandatory without a default value")
                        }
                        mapping.attributeMappings.append(PropertyMapping(name: attribute.name))
                        continue
                    }
                    guard converts(old.attributeType, to: attribute.attributeType) else {
                        throw cannotInfer(
                            entity, attribute,
                            "changed from \(old.attributeType.rawValue) to "
                                + attribute.attributeType.rawValue)
                    }
                    mapping.attributeMappings.append(
                        PropertyMapping(
                            name: attribute.name,
                            valueExpression: .member(of: .variable("source"), keyPath: old.name)))
                case let relationship as RelationshipDescription:
                    guard let old = counterpart as? RelationshipDescription else {
                        mapping.relationshipMappings.append(PropertyMapping(name: relationship.name))
                        continue
                    }
                    mapping.relationshipMappings.append(
                        PropertyMapping(
                            name: relationship.name,
                            valueExpression: .selectorCall(
                                .variable("manager"),
                                MigrationManager.destinationInstancesForSourceRelationship,
                                [
                                    .constant(.string(old.name)),
                                    .member(of: .variable("source"), keyPath: old.name),
                                ])))
                default:
                    continue
                }
            }
            mappings.append(mapping)
        }
        for entity in source.entities where !mapped.contains(entity.name) {
            mappings.append(
                EntityMapping(
                    name: EntityMapping.defaultName(source: entity.name, destination: nil),
                    mappingType: .remove, sourceEntityName: entity.name,
                    destinationEntityName: nil))
        }
        return MappingModel(entityMappings: mappings)
    }

    /// Whether lightweight migration converts values of one attribute type to another.
    static func converts(_ old: AttributeType, to new: AttributeType) -> Bool {
        if old == new || new == .string || new == .undefined || new == .transformable { return true }
        let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]
        return numeric.contains(old) && numeric.contains(new)
    }

    private static func cannotInfer(
        _ entity: EntityDescription, _ attribute: AttributeDescription,
        _ text: String
    ) -> MigrationError {
        MigrationError(
            code: .invalidMappingModel,
            message: "Cannot infer a mapping: attribute '\(attribute.name)' of '\(entity.name)' \(text); "
                + "give a mapping model or a default value.",
            context: ErrorContext(entityName: entity.name, key: attribute.name))
    }
}
