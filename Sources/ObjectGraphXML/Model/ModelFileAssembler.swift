import Foundation
import ObjectGraph

/// Turns what ``ModelFileReader`` read into a consistent model: resolves names of entities, parents and inverses
/// (reporting dangling ones with their line), sets configurations and templates.
enum ModelFileAssembler {
    static func assemble(_ model: ManagedObjectModel, from contents: ModelFileContents, fileName: String) throws {
        let byName = Dictionary(contents.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func fail(_ line: Int, _ message: String, entity: String? = nil, key: String? = nil) -> ModelError {
            ModelError(
                code: .invalidModelFile, message: "\(fileName):\(line): \(message)",
                context: ErrorContext(entityName: entity, key: key))
        }
        for reference in contents.references where byName[reference.entityName] == nil {
            let owner = reference.owner.map { " of entity \($0)" } ?? ""
            let named = reference.key.map { " name=\"\($0)\"" } ?? ""
            throw fail(
                reference.line,
                "<\(reference.element)\(named)>\(owner) has \(reference.attribute)=\""
                    + "\(reference.entityName)\", an entity the model lacks; add the entity or fix the name.",
                entity: reference.owner ?? reference.entityName, key: reference.key)
        }
        var children: [String: [EntityDescription]] = [:]
        for parent in contents.parents {
            guard byName[parent.parentName] != nil, parent.parentName != parent.entity.name else {
                throw fail(
                    parent.line,
                    "<entity name=\"\(parent.entity.name)\"> has parentEntity=\"\(parent.parentName)\""
                        + ", which is not another entity of the model.", entity: parent.entity.name)
            }
            children[parent.parentName, default: []].append(parent.entity)
        }
        for entity in contents.entities {
            if let subentities = children[entity.name] { entity.subentities = subentities }
        }
        if let cycle = contents.parents.first(where: { inheritsFromItself($0.entity) }) {
            throw fail(
                cycle.line,
                "<entity name=\"\(cycle.entity.name)\"> inherits from itself through its "
                    + "parentEntity chain.", entity: cycle.entity.name)
        }
        for item in contents.relationships {
            let relationship = item.relationship
            guard let inverseName = relationship.inverseName,
                let destination = byName[relationship.destinationEntityName]
            else { continue }
            guard destination.relationshipsByName[inverseName] != nil else {
                throw fail(
                    item.line,
                    "<relationship name=\"\(relationship.name)\"> of entity \(item.entity.name) has "
                        + "inverseName=\"\(inverseName)\", which \(destination.name) lacks.",
                    entity: item.entity.name, key: relationship.name)
            }
        }
        for configuration in contents.configurations {
            model.setEntities(
                configuration.memberNames.compactMap { byName[$0] },
                forConfigurationName: configuration.name)
        }
        for (name, template) in contents.templates {
            model.setFetchRequestTemplate(template, forName: name)
        }
        if let identifier = contents.versionIdentifier { model.versionIdentifiers = [identifier] }
        do {
            try model.resolveRelationships()
        } catch let error as ModelError {
            throw ModelError(
                code: .invalidModelFile, message: "\(fileName): \(error.message)", context: error.context,
                cause: error)
        }
    }

    private static func inheritsFromItself(_ entity: EntityDescription) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        var current: EntityDescription? = entity
        while let next = current {
            guard seen.insert(ObjectIdentifier(next)).inserted else { return true }
            current = next.superentity
        }
        return false
    }
}
