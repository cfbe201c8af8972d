import Foundation
import ObjectGraph
import SafeXML

extension ModelFileReader {
    mutating func readAttribute(_ start: XMLElementStart, entity: String) throws -> AttributeDescription {
        let attributeName = try required("name", of: start)
        let typeName = start[attribute: "attributeType"] ?? AttributeType.undefined.rawValue
        guard let type = AttributeType(rawValue: typeName) else {
            throw XMLFormatError(
                "<attribute name=\"\(attributeName)\"> of \(entity) has the unknown attributeType "
                    + "\"\(typeName)\".", line: start.line)
        }
        let describe = "<attribute name=\"\(attributeName)\"> of \(entity)"
        let attribute: AttributeDescription
        if type == .composite {
            guard let definition = nonEmpty(start[attribute: "composite"]) else {
                throw XMLFormatError(
                    "\(describe) has attributeType=\"Composite\" but no composite=\"…\" naming its definition.",
                    line: start.line)
            }
            let composite = CompositeAttributeDescription()
            composite.name = attributeName
            composite.isOptional = Self.flag(start[attribute: "optional"])
            composite.definitionName = definition
            contents.compositeUses.append(
                .init(attribute: composite, definitionName: definition, owner: entity, line: start.line))
            attribute = composite
        } else if Self.flag(start[attribute: "derived"]) {
            let derived = DerivedAttributeDescription()
            derived.name = attributeName
            derived.attributeType = type
            derived.isOptional = Self.flag(start[attribute: "optional"])
            derived.derivationExpression = try derivationExpression(of: start, describe)
            attribute = derived
        } else {
            attribute = AttributeDescription(
                name: attributeName, type: type,
                isOptional: Self.flag(start[attribute: "optional"]))
        }
        readCommonFlags(start, into: attribute)
        if type == .date {
            attribute.defaultValue = try date("defaultDateTimeInterval", of: start, describe)
            attribute.minimumValue = try date("minDateTimeInterval", of: start, describe)
            attribute.maximumValue = try date("maxDateTimeInterval", of: start, describe)
        } else {
            if let text = start[attribute: "defaultValueString"] {
                attribute.defaultValue = try ModelValueFormat.defaultValue(text, type: type).orThrow(
                    XMLFormatError(
                        "\(describe) has a defaultValueString that is not a \(typeName) value.",
                        line: start.line))
            }
            for (key, bound) in [("minValueString", true), ("maxValueString", false)] {
                guard let text = nonEmpty(start[attribute: key]) else { continue }
                let value = try ModelValueFormat.bound(text, type: type).orThrow(
                    XMLFormatError("\(describe) has a \(key) that is not a number.", line: start.line))
                if bound { attribute.minimumValue = value } else { attribute.maximumValue = value }
            }
        }
        attribute.regularExpression = nonEmpty(start[attribute: "regularExpressionString"])
        attribute.usesScalarValueType = Self.flag(start[attribute: "usesScalarValueType"])
        attribute.valueTransformerName = nonEmpty(start[attribute: "valueTransformerName"])
        attribute.attributeValueClassName = nonEmpty(start[attribute: "customClassName"])
        attribute.allowsExternalBinaryDataStorage = Self.flag(start[attribute: "allowsExternalBinaryDataStorage"])
        attribute.preservesValueInHistoryOnDeletion = Self.flag(start[attribute: "preserveAfterDeletion"])
        try readPropertyChildren(into: attribute)
        return attribute
    }

    /// The `derivationExpression` of a derived attribute (`derived="YES"`), as Xcode writes it.
    private func derivationExpression(of start: XMLElementStart, _ describe: String) throws -> ObjectExpression {
        guard let text = nonEmpty(start[attribute: "derivationExpression"]) else {
            throw XMLFormatError("\(describe) is derived but has no derivationExpression.", line: start.line)
        }
        do {
            return try ObjectExpression(format: text)
        } catch {
            throw XMLFormatError(
                "\(describe) has the derivationExpression \"\(text)\", which does not parse: \(error)",
                line: start.line)
        }
    }

    mutating func readRelationship(_ start: XMLElementStart, entity: EntityDescription) throws
        -> RelationshipDescription
    {
        let relationshipName = try required("name", of: start)
        let describe = "<relationship name=\"\(relationshipName)\"> of \(entity.name)"
        guard let destination = nonEmpty(start[attribute: "destinationEntity"]) else {
            throw XMLFormatError("\(describe) has no destinationEntity.", line: start.line)
        }
        let ruleName = start[attribute: "deletionRule"] ?? RelationshipDescription.DeleteRule.nullify.rawValue
        guard let rule = RelationshipDescription.DeleteRule(rawValue: ruleName) else {
            throw XMLFormatError("\(describe) has the unknown deletionRule \"\(ruleName)\".", line: start.line)
        }
        let toMany = Self.flag(start[attribute: "toMany"])
        let relationship = RelationshipDescription(
            name: relationshipName, destination: destination, inverse: nonEmpty(start[attribute: "inverseName"]),
            toMany: toMany, deleteRule: rule, isOptional: Self.flag(start[attribute: "optional"]),
            isOrdered: Self.flag(start[attribute: "ordered"]))
        if toMany, let maxCount = try integer("maxCount", of: start), maxCount > 1 {
            relationship.setToMany(true, maxCount: maxCount)
        }
        relationship.minCount = max(0, try integer("minCount", of: start) ?? 0)
        readCommonFlags(start, into: relationship)
        contents.references.append(
            .init(
                element: "relationship", attribute: "destinationEntity",
                entityName: destination, owner: entity.name, key: relationshipName,
                line: start.line))
        contents.relationships.append(.init(entity: entity, relationship: relationship, line: start.line))
        try readPropertyChildren(into: relationship)
        return relationship
    }

    mutating func readFetchedProperty(_ start: XMLElementStart, entity: String) throws -> FetchedPropertyDescription {
        let propertyName = try required("name", of: start)
        var fetched: FetchedPropertyDescription?
        var userInfo: [String: String] = [:]
        while let child = try parser.nextChildElement() {
            switch child.name {
            case "fetchRequest":
                let destination = try required("entity", of: child)
                contents.references.append(
                    .init(
                        element: "fetchRequest", attribute: "entity", entityName: destination,
                        owner: entity, key: propertyName, line: child.line))
                let predicate = try predicate(child, owner: "fetched property '\(propertyName)' of \(entity)")
                fetched = FetchedPropertyDescription(name: propertyName, destination: destination, predicate: predicate)
                try parser.skipElement()
            case "userInfo":
                userInfo = try readUserInfo()
            default:
                try parser.skipElement()
            }
        }
        guard let fetched else {
            throw XMLFormatError(
                "<fetchedProperty name=\"\(propertyName)\"> of \(entity) has no <fetchRequest>.",
                line: start.line)
        }
        fetched.isOptional = Self.flag(start[attribute: "optional"])
        fetched.userInfo = userInfo
        fetched.renamingIdentifier = nonEmpty(start[attribute: "elementID"])
        return fetched
    }

    private func readCommonFlags(_ start: XMLElementStart, into property: PropertyDescription) {
        property.isTransient = Self.flag(start[attribute: "transient"])
        property.isIndexed = Self.flag(start[attribute: "indexed"])
        property.renamingIdentifier = nonEmpty(start[attribute: "elementID"])
        property.versionHashModifier = nonEmpty(start[attribute: "versionHashModifier"])
    }

    /// Reads a property element's children: its `userInfo`; anything else is skipped.
    private mutating func readPropertyChildren(into property: PropertyDescription) throws {
        while let child = try parser.nextChildElement() {
            if child.name == "userInfo" {
                property.userInfo = try readUserInfo()
            } else {
                try parser.skipElement()
            }
        }
    }

    private func date(_ attribute: String, of start: XMLElementStart, _ describe: String) throws -> Date? {
        guard let text = nonEmpty(start[attribute: attribute]) else { return nil }
        guard let interval = XMLNumberFormat.double(text) else {
            throw XMLFormatError("\(describe) has a \(attribute) that is not a number of seconds.", line: start.line)
        }
        return Date(timeIntervalSinceReferenceDate: interval)
    }
}
