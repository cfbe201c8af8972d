import AlmanacWire
import ObjectGraph

/// The model as the `model` operation shows it.
enum ModelDescription {
    static func body(_ model: ManagedObjectModel) -> WireResponse.Model {
        let entities = model.entities.map { entity in
            WireResponse.Model.Entity(
                name: entity.name, parent: entity.superentity?.name, isAbstract: entity.isAbstract,
                attributes: entity.allProperties.compactMap { $0 as? AttributeDescription }.map {
                    .init(name: $0.name, type: $0.attributeType.rawValue, isOptional: $0.isOptional,
                          isTransient: $0.isTransient)
                },
                relationships: entity.allProperties.compactMap { $0 as? RelationshipDescription }.map {
                    .init(name: $0.name, destination: $0.destinationEntityName, isToMany: $0.isToMany,
                          inverse: $0.inverseName, deleteRule: $0.deleteRule.rawValue)
                })
        }
        let configurations = model.configurations.map { name in
            WireResponse.Model.Configuration(
                name: name, entities: (model.entities(forConfigurationName: name) ?? []).map(\.name))
        }
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, template in
            WireResponse.Model.Template(
                name: name, entity: template.entityName, predicate: template.predicate?.predicateFormat,
                variables: template.predicate?.referencedVariables.sorted() ?? [])
        }
        return WireResponse.Model(entities: entities, configurations: configurations, templates: templates)
    }
}
