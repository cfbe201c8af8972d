/// How to migrate the objects of a store from one model to another (Core Data's `NSMappingModel`): one entity
/// mapping per destination entity (and per removed source entity), migrated in the order listed.
///
/// Build one in code, infer one with ``inferredMappingModel(forSourceModel:destinationModel:)``, or read one from
/// an Xcode `.xcmappingmodel` with `MappingModel(contentsOf:)` (`ObjectGraphXML`).
public final class MappingModel: @unchecked Sendable {  // configured before a migration, then only read
    /// The entity mappings, in the order the migration runs them.
    public var entityMappings: [EntityMapping]

    /// Creates a mapping model.
    public init(entityMappings: [EntityMapping] = []) {
        self.entityMappings = entityMappings
    }

    /// The entity mappings by name.
    public var entityMappingsByName: [String: EntityMapping] {
        Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks that the mapping fits the models: every entity and property it names exists.
    ///
    /// - Throws: ``MigrationError/Code/invalidMappingModel`` naming the mapping and what is missing.
    public func validate(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) throws {
        let sources = sourceModel.entitiesByName
        let destinations = destinationModel.entitiesByName
        var names: Set<String> = []
        for mapping in entityMappings {
            guard names.insert(mapping.name).inserted else {
                throw invalid(mapping, "two entity mappings are named '\(mapping.name)'")
            }
            if let source = mapping.sourceEntityName, sources[source] == nil {
                throw invalid(mapping, "the source model has no entity '\(source)'")
            }
            guard let destinationName = mapping.destinationEntityName else { continue }
            guard let destination = destinations[destinationName] else {
                throw invalid(mapping, "the destination model has no entity '\(destinationName)'")
            }
            if destination.isAbstract, mapping.mappingType != .add, mapping.mappingType != .remove {
                throw invalid(mapping, "the destination entity '\(destinationName)' is abstract")
            }
            for property in mapping.attributeMappings where destination.attributesByName[property.name] == nil {
                throw invalid(mapping, "'\(destinationName)' has no attribute '\(property.name)'")
            }
            for property in mapping.relationshipMappings where destination.relationshipsByName[property.name] == nil {
                throw invalid(mapping, "'\(destinationName)' has no relationship '\(property.name)'")
            }
        }
    }

    private func invalid(_ mapping: EntityMapping, _ text: String) -> MigrationError {
        MigrationError(
            code: .invalidMappingModel,
            message: "Entity mapping '\(mapping.name)' does not fit the models: \(text).",
            context: ErrorContext(entityName: mapping.destinationEntityName ?? mapping.sourceEntityName),
            entityMappingName: mapping.name)
    }
}
