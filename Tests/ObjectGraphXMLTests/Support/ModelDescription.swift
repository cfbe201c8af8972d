import Foundation
import ObjectGraph
@testable import ObjectGraphTestSupport

/// A complete, order-preserving description of a model, to compare two models field by field.
enum ModelDescription {
    static func lines(_ model: ManagedObjectModel) -> [String] {
        var lines: [String] = ["versions \(model.versionIdentifiers.sorted())"]
        for entity in model.entities {
            lines.append(
                "entity \(entity.name) class=\(entity.managedObjectClassName) abstract=\(entity.isAbstract) "
                    + "parent=\(entity.superentity?.name ?? "-") subs=\(entity.subentities.map(\.name)) "
                    + "renaming=\(entity.renamingIdentifier ?? "-") modifier=\(entity.versionHashModifier ?? "-") "
                    + "userInfo=\(sorted(entity.userInfo)) unique=\(entity.uniquenessConstraints) "
                    + "indexes=\(entity.indexes.map { "\($0.name):\($0.propertyNames):\($0.descending.sorted())" })")
            for property in entity.properties { lines.append("  " + describe(property)) }
        }
        for name in model.configurations {
            lines.append("configuration \(name) \((model.entities(forConfigurationName: name) ?? []).map(\.name))")
        }
        for name in model.fetchRequestTemplateNames {
            let template = model.fetchRequestTemplatesByName[name]!
            lines.append(
                "template \(name) entity=\(template.entityName) "
                    + "predicate=\(template.predicate?.predicateFormat ?? "-") limit=\(template.fetchLimit) "
                    + "offset=\(template.fetchOffset) subentities=\(template.includesSubentities) "
                    + "pending=\(template.includesPendingChanges) faults=\(template.returnsObjectsAsFaults)")
        }
        return lines
    }

    static func describe(_ property: PropertyDescription) -> String {
        var text =
            "\(property.name) optional=\(property.isOptional) transient=\(property.isTransient) "
            + "indexed=\(property.isIndexed) renaming=\(property.renamingIdentifier ?? "-") "
            + "userInfo=\(sorted(property.userInfo))"
        switch property {
        case let attribute as AttributeDescription:
            text +=
                " attribute \(attribute.attributeType.rawValue) default=\(show(attribute.defaultValue)) "
                + "min=\(show(attribute.minimumValue)) max=\(show(attribute.maximumValue)) "
                + "regex=\(attribute.regularExpression ?? "-") transformer=\(attribute.valueTransformerName ?? "-") "
                + "class=\(attribute.attributeValueClassName ?? "-") scalar=\(attribute.usesScalarValueType) "
                + "external=\(attribute.allowsExternalBinaryDataStorage)"
        case let relationship as RelationshipDescription:
            text +=
                " relationship -> \(relationship.destinationEntityName) inverse=\(relationship.inverseName ?? "-") "
                + "resolved=\(relationship.inverseRelationship?.name ?? "-") toMany=\(relationship.isToMany) "
                + "ordered=\(relationship.isOrdered) min=\(relationship.minCount) max=\(relationship.maxCount) "
                + "rule=\(relationship.deleteRule.rawValue)"
        case let fetched as FetchedPropertyDescription:
            text +=
                " fetched -> \(fetched.destinationEntityName) predicate=\(fetched.predicate?.predicateFormat ?? "-")"
        default:
            break
        }
        return text
    }

    private static func show(_ value: (any Sendable)?) -> String {
        value.map { "\(type(of: $0))(\($0))" } ?? "-"
    }

    private static func sorted(_ dictionary: [String: String]) -> String {
        dictionary.keys.sorted().map { "\($0)=\(dictionary[$0]!)" }.joined(separator: ",")
    }
}
