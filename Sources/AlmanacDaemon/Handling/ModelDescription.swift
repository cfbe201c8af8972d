import AlmanacWire
import ObjectGraph

/// The model as the `model` operation shows it.
enum ModelDescription {
    static func json(_ model: ManagedObjectModel) -> JSONObject {
        let entities: [JSONValue] = model.entities.map { entity in
            let attributes: [JSONValue] = entity.allProperties.compactMap { $0 as? AttributeDescription }.map {
                .object(["name": .string($0.name), "type": .string($0.attributeType.rawValue),
                         "optional": .bool($0.isOptional), "transient": .bool($0.isTransient)])
            }
            let relationships: [JSONValue] = entity.allProperties.compactMap { $0 as? RelationshipDescription }.map {
                .object(["name": .string($0.name), "destination": .string($0.destinationEntityName),
                         "toMany": .bool($0.isToMany), "inverse": $0.inverseName.map { .string($0) } ?? .null,
                         "deleteRule": .string($0.deleteRule.rawValue)])
            }
            return .object(["name": .string(entity.name),
                            "parent": entity.superentity.map { .string($0.name) } ?? .null,
                            "abstract": .bool(entity.isAbstract), "attributes": .array(attributes),
                            "relationships": .array(relationships)])
        }
        var configurations: JSONObject = [:]
        for name in model.configurations {
            configurations[name] = .array((model.entities(forConfigurationName: name) ?? []).map { .string($0.name) })
        }
        var templates: JSONObject = [:]
        for (name, template) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            templates[name] = .object([
                "entity": .string(template.entityName),
                "predicate": template.predicate.map { .string($0.predicateFormat) } ?? .null,
                "variables": .array((template.predicate?.referencedVariables.sorted() ?? []).map { .string($0) }),
            ])
        }
        return ["entities": .array(entities), "configurations": .object(configurations), "templates": .object(templates)]
    }
}
