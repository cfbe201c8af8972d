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
        try resolveComposites(contents, fail: fail)
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

    /// Gives every attribute of type Composite the elements of the `<composite>` definition it names: copies of
    /// them, so that each use is an attribute of its own (definitions that contain composites first).
    private static func resolveComposites(
        _ contents: ModelFileContents, fail: (Int, String, String?, String?) -> ModelError
    ) throws {
        let definitions = contents.compositeDefinitions
        let usesByAttribute = Dictionary(
            contents.compositeUses.map { (ObjectIdentifier($0.attribute), $0) },
            uniquingKeysWith: { first, _ in first })
        var resolved: Set<String> = []
        func elements(of use: ModelFileContents.CompositeUse, chain: [String]) throws -> [AttributeDescription] {
            let name = use.definitionName
            guard let definition = definitions[name] else {
                throw fail(
                    use.line,
                    "<attribute name=\"\(use.attribute.name)\"> of \(use.owner) has composite=\"\(name)\", a "
                        + "composite the model does not define; add the <composite> or fix the name.",
                    nil, use.attribute.name)
            }
            guard !chain.contains(name) else {
                throw fail(
                    definition.line,
                    "<composite name=\"\(name)\"> contains itself (\((chain + [name]).joined(separator: " > ")))",
                    nil, nil)
            }
            if !resolved.contains(name) {
                for case let nested as CompositeAttributeDescription in definition.elements {
                    guard let nestedUse = usesByAttribute[ObjectIdentifier(nested)] else { continue }
                    nested.elements = try elements(of: nestedUse, chain: chain + [name])
                }
                resolved.insert(name)
            }
            return definition.elements.map { $0.copyForMerge() as! AttributeDescription }
        }
        for use in contents.compositeUses where !use.inDefinition {
            use.attribute.elements = try elements(of: use, chain: [])
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
