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

    var entities: [EntityDescription] = []
    var parents: [Parent] = []
    var references: [EntityReference] = []
    var relationships: [RelationshipLine] = []
    var configurations: [Configuration] = []
    var templates: [(name: String, template: FetchRequestTemplate)] = []
    var versionIdentifier: String?
    /// Xcode's `codeGenerationType` of the entities that have one, by entity name.
    var codeGenerationTypes: [String: String] = [:]
}
