import Foundation
import ObjectGraph

/// What an Xcode model file's `contents` describes, before it becomes a ``ObjectGraph/ManagedObjectModel``: the
/// entities with their properties, plus what refers to other entities by name, each with the line it came from
/// so that a dangling name can be reported where it is.
struct ModelFileContents {
    /// A name that must resolve to an entity of the model.
    struct EntityReference {
        /// The element that holds the name, e.g. `relationship` or `memberEntity`.
        var element: String
        /// The attribute that holds the name, e.g. `destinationEntity`.
        var attribute: String
        var entityName: String
        /// The entity whose element holds the reference, if any.
        var owner: String?
        var key: String?
        var line: Int
    }

    /// An entity's `parentEntity`.
    struct Parent {
        var entity: EntityDescription
        var parentName: String
        var line: Int
    }

    /// A relationship with the line of its element, for inverse checks.
    struct RelationshipLine {
        var entity: EntityDescription
        var relationship: RelationshipDescription
        var line: Int
    }

    /// A `<configuration>` and its members, in file order.
    struct Configuration {
        var name: String
        var memberNames: [String]
        var line: Int
    }

    /// An attribute of type Composite and the definition it names (`composite="Magnitude"`).
    struct CompositeUse {
        var attribute: CompositeAttributeDescription
        var definitionName: String
        /// What holds the attribute, for messages: `entity Quake` or `composite Location`.
        var owner: String
        var line: Int
        /// Whether the attribute is an element of a definition (resolved with it) rather than an entity's.
        var inDefinition = false
    }

    /// A `<composite>` definition: its elements as read (elements of type Composite are filled in by their own
    /// ``CompositeUse``), and its line.
    struct CompositeDefinition {
        var elements: [AttributeDescription]
        var line: Int
    }

    var entities: [EntityDescription] = []
    var compositeUses: [CompositeUse] = []
    var compositeDefinitions: [String: CompositeDefinition] = [:]
    var parents: [Parent] = []
    var references: [EntityReference] = []
    var relationships: [RelationshipLine] = []
    var configurations: [Configuration] = []
    var templates: [(name: String, template: FetchRequestTemplate)] = []
    var versionIdentifier: String?
    /// Xcode's `codeGenerationType` of the entities that have one, by entity name.
    var codeGenerationTypes: [String: String] = [:]
}
