import Foundation

/// A binary store file's entity table matched against the model: which entity of the store's configuration each
/// entry names, and what each of its property names holds there, so that every value is checked as it is read.
///
/// The file names its own entities and properties, so a damaged or foreign file can name anything. What loads must
/// still be what the rest of the framework relies on (a context traps on an object ID of an entity the model
/// lacks): objects of the configuration's entities, attribute values of their attribute's type, relationships to
/// objects of the destination entity.
struct BinaryStoreSchema {
    /// What a property name of the table holds in the model.
    enum Slot {
        /// A persistent attribute: values of its type.
        case attribute(AttributeType)
        /// A persistent relationship: one object ID (to-one) or a list (to-many) of the destination's entities.
        case relationship(isToMany: Bool, destinations: [String])
        /// A property whose values are not stored (transient, fetched): values are dropped.
        case dropped
        /// A name the model's entity lacks.
        case unknown
    }

    /// One entry of the table.
    struct Entity {
        /// The name in the file.
        let name: String
        /// The configuration's entity of that name; `nil` when it has none.
        let description: EntityDescription?
        /// The file's property names, in the file's order.
        let propertyNames: [String]
        /// What each property name holds, in the same order.
        let slots: [Slot]
    }

    let entities: [Entity]

    /// Matches the table against the entities of the store's configuration.
    init(table: [(name: String, properties: [String])], modelEntities: [EntityDescription]) {
        let byName = Dictionary(modelEntities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        entities = table.map { name, properties in
            guard let entity = byName[name] else {
                return Entity(name: name, description: nil, propertyNames: properties,
                              slots: Array(repeating: .unknown, count: properties.count))
            }
            let model = entity.propertiesByName
            let slots = properties.map { property -> Slot in
                switch model[property] {
                case nil:
                    return .unknown
                case let property? where property.isTransient:
                    return .dropped
                case let attribute as AttributeDescription:
                    return .attribute(attribute.attributeType)
                case let relationship as RelationshipDescription:
                    let destinations = relationship.destinationEntity?.selfAndDescendants.map(\.name)
                        ?? [relationship.destinationEntityName]
                    return .relationship(isToMany: relationship.isToMany, destinations: destinations)
                default:
                    return .dropped
                }
            }
            return Entity(name: name, description: entity, propertyNames: properties, slots: slots)
        }
    }

    /// A value read for an attribute, in the attribute type's canonical representation; `nil` when it is not a
    /// value of that type.
    ///
    /// The value's tag decides for the values the writer writes (no cast needed); anything else must convert
    /// without loss (``AttributeType/coerce(_:)``).
    static func attributeValue(_ value: any Sendable, tag: BinaryStoreFormat.Tag, type: AttributeType)
        -> (any Sendable)?
    {
        let expected: BinaryStoreFormat.Tag?
        switch type {
        case .integer16, .integer32:
            // The tag says Int; only the range is left to check.
            guard tag == .integer, let int = value as? Int else { return type.coerce(value) }
            return type.integerRange?.contains(int) == true ? value : nil
        case .integer64: expected = .integer
        case .decimal: expected = .decimal
        case .double: expected = .double
        case .float: expected = .float
        case .string: expected = .string
        case .boolean: expected = tag == .isFalse ? .isFalse : .isTrue
        case .date: expected = .date
        case .binaryData: expected = .data
        case .uuid: expected = .uuid
        case .uri: expected = .url
        case .objectID: expected = .objectID
        case .transformable, .undefined: expected = nil
        case .composite: expected = .dictionary
        }
        guard let expected, tag != expected else { return value }
        return type.coerce(value)
    }
}
