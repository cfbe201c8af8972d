import Foundation
import ObjectGraph

/// The store's entities and persistent properties as the XML file names them, built once per load or save.
///
/// Core Data writes entity names upper-cased (`type="SESSION"`) and property names lower-cased
/// (`name="starttime"`); lookups try the exact name first, then the case-folded one. Where folding would make
/// two names of one entity collide, those properties are written and matched by their exact names.
struct XMLStoreSchema {
    /// One persistent property of an entity.
    struct Property {
        enum Kind {
            case attribute(AttributeType)
            case relationship(RelationshipDescription)
        }

        /// The model's property name (the key of store records).
        let name: String
        /// The name written in the file.
        let fileName: String
        let kind: Kind
        /// The description of a composite attribute (its values are converted element by element).
        var composite: CompositeAttributeDescription? = nil
    }

    /// One entity with its property lookup table.
    final class Entity {
        let description: EntityDescription
        let name: String
        /// The name written in `type=` and `destination=`.
        let fileName: String
        /// Persistent properties sorted by name: attributes first, then relationships (the write order).
        let properties: [Property]
        /// Index into ``properties`` by exact model name and by file name.
        let indexByName: [String: Int]

        init(_ entity: EntityDescription, fileName: String) {
            description = entity
            name = entity.name
            self.fileName = fileName
            var attributes: [PropertyDescription] = []
            var relationships: [PropertyDescription] = []
            for property in entity.allProperties where !property.isTransient {
                if property is AttributeDescription { attributes.append(property) }
                if property is RelationshipDescription { relationships.append(property) }
            }
            let ordered = attributes.sorted { $0.name < $1.name } + relationships.sorted { $0.name < $1.name }
            var foldedCounts: [String: Int] = [:]
            for property in ordered { foldedCounts[property.name.lowercased(), default: 0] += 1 }
            var properties: [Property] = []
            var index: [String: Int] = [:]
            for property in ordered {
                let folded = property.name.lowercased()
                let fileName = foldedCounts[folded] == 1 ? folded : property.name
                let kind: Property.Kind
                if let attribute = property as? AttributeDescription {
                    kind = .attribute(attribute.attributeType)
                } else {
                    kind = .relationship(property as! RelationshipDescription)
                }
                index[fileName] = properties.count
                properties.append(
                    Property(
                        name: property.name, fileName: fileName, kind: kind,
                        composite: property as? CompositeAttributeDescription))
            }
            for (offset, property) in properties.enumerated() where index[property.name] == nil {
                index[property.name] = offset
            }
            self.properties = properties
            indexByName = index
        }

        /// The property a file names: exact match first, then case-insensitive.
        func property(named fileName: String) -> Property? {
            if let offset = indexByName[fileName] { return properties[offset] }
            if let offset = indexByName[fileName.lowercased()] { return properties[offset] }
            return nil
        }
    }

    /// The entities the store holds, in the model's order.
    let entities: [Entity]
    private let indexByName: [String: Int]

    /// Builds the schema of the entities a store's configuration holds.
    init(model: ManagedObjectModel, configurationName: String?) {
        let descriptions = model.entities(forConfigurationName: configurationName) ?? model.entities
        var upperCounts: [String: Int] = [:]
        for entity in descriptions { upperCounts[entity.name.uppercased(), default: 0] += 1 }
        let entities = descriptions.map { entity in
            let upper = entity.name.uppercased()
            return Entity(entity, fileName: upperCounts[upper] == 1 ? upper : entity.name)
        }
        var index: [String: Int] = [:]
        for (offset, entity) in entities.enumerated() {
            index[entity.name] = offset
        }
        for (offset, entity) in entities.enumerated() where index[entity.fileName] == nil {
            index[entity.fileName] = offset
        }
        self.entities = entities
        indexByName = index
    }

    /// The entity a file's `type=` names: exact name, Core Data's upper-cased name, then case-insensitively.
    func entityIndex(named fileName: String) -> Int? {
        if let offset = indexByName[fileName] { return offset }
        let upper = fileName.uppercased()
        if let offset = indexByName[upper] { return offset }
        return entities.firstIndex { $0.fileName == upper }
    }

    /// The entity named exactly `name` in the model.
    func entity(named name: String) -> Entity? {
        indexByName[name].map { entities[$0] }
    }
}
