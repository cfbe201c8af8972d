import Foundation
import ObjectGraph
import SafeXML

/// Writes a model as the `contents` XML of an Xcode `.xcdatamodel`, with the element and attribute names and
/// value formats Xcode uses (see ``ModelValueFormat``).
enum ModelFileWriter {
    static func data(for model: ManagedObjectModel) throws -> Data {
        var writer = XMLWriter()
        do {
            writer.writeDeclaration(standalone: true)
            try writer.startElement(
                "model",
                attributes: [
                    ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                    ("lastSavedToolsVersion", "1"), ("systemVersion", ""), ("minimumToolsVersion", "Automatic"),
                    ("sourceLanguage", "Swift"),
                    ("userDefinedModelVersionIdentifier", model.versionIdentifiers.sorted().first ?? ""),
                ])
            let composites = CompositeDefinitions(model)
            for entity in model.entities { try write(entity, composites: composites, into: &writer) }
            for (name, composite) in composites.definitions {
                try writer.startElement("composite", attributes: [("name", name)])
                for element in composite.elements { try write(element, composites: composites, into: &writer) }
                try writer.endElement()
            }
            for name in model.fetchRequestTemplateNames {
                guard let template = model.fetchRequestTemplatesByName[name] else { continue }
                try writeTemplate(template, name: name, into: &writer)
            }
            for name in model.configurations {
                try writer.startElement("configuration", attributes: [("name", name)])
                for entity in model.entities(forConfigurationName: name) ?? [] {
                    try writer.writeElement("memberEntity", attributes: [("name", entity.name)])
                }
                try writer.endElement()
            }
            try writer.endElement()
            return Data(try writer.finish())
        } catch let error as XMLError {
            throw ModelError(
                code: .invalidModelFile, message: "The model cannot be written as XML: \(error.message)",
                cause: error)
        }
    }

    private static func write(
        _ entity: EntityDescription, composites: CompositeDefinitions, into writer: inout XMLWriter
    ) throws {
        var attributes: [(name: String, value: String)] = [("name", entity.name)]
        if entity.managedObjectClassName != "ManagedObject" {
            attributes.append(("representedClassName", entity.managedObjectClassName))
        }
        if let parent = entity.superentity { attributes.append(("parentEntity", parent.name)) }
        if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
        if let elementID = entity.renamingIdentifier { attributes.append(("elementID", elementID)) }
        if let modifier = entity.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        try writer.startElement("entity", attributes: attributes)
        for property in entity.properties {
            switch property {
            case let attribute as AttributeDescription: try write(attribute, composites: composites, into: &writer)
            case let relationship as RelationshipDescription: try write(relationship, into: &writer)
            case let fetched as FetchedPropertyDescription: try write(fetched, into: &writer)
            default: continue
            }
        }
        for index in entity.indexes {
            try writer.startElement("fetchIndex", attributes: [("name", index.name)])
            for property in index.propertyNames {
                let order = index.descending.contains(property) ? "descending" : "ascending"
                try writer.writeElement(
                    "fetchIndexElement",
                    attributes: [("property", property), ("type", "Binary"), ("order", order)])
            }
            try writer.endElement()
        }
        if !entity.uniquenessConstraints.isEmpty {
            try writer.startElement("uniquenessConstraints")
            for constraint in entity.uniquenessConstraints {
                try writer.startElement("uniquenessConstraint")
                for name in constraint { try writer.writeElement("constraint", attributes: [("value", name)]) }
                try writer.endElement()
            }
            try writer.endElement()
        }
        try writeUserInfo(entity.userInfo, into: &writer)
        try writer.endElement()
    }

    private static func write(
        _ attribute: AttributeDescription, composites: CompositeDefinitions, into writer: inout XMLWriter
    ) throws {
        let type = attribute.attributeType
        var attributes = commonAttributes(of: attribute)
        attributes.append(("attributeType", type.rawValue))
        if let composite = attribute as? CompositeAttributeDescription, let name = composites.name(of: composite) {
            attributes.append(("composite", name))
        }
        if let derived = attribute as? DerivedAttributeDescription {
            attributes.append(("derived", "YES"))
            if let format = derived.derivationFormat { attributes.append(("derivationExpression", format)) }
        }
        if type == .date {
            let pairs: [(String, Any?)] = [
                ("minDateTimeInterval", attribute.minimumValue),
                ("maxDateTimeInterval", attribute.maximumValue),
                ("defaultDateTimeInterval", attribute.defaultValue),
            ]
            for case let (key, date as Date) in pairs {
                attributes.append((key, XMLNumberFormat.timeIntervalString(from: date.timeIntervalSinceReferenceDate)))
            }
        } else {
            if let minimum = attribute.minimumValue.flatMap(ModelValueFormat.string(fromNumber:)) {
                attributes.append(("minValueString", minimum))
            }
            if let maximum = attribute.maximumValue.flatMap(ModelValueFormat.string(fromNumber:)) {
                attributes.append(("maxValueString", maximum))
            }
            if let value = attribute.defaultValue, let text = ModelValueFormat.string(fromDefault: value, type: type) {
                attributes.append(("defaultValueString", text))
            }
        }
        if let expression = attribute.regularExpression { attributes.append(("regularExpressionString", expression)) }
        if attribute.allowsExternalBinaryDataStorage { attributes.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { attributes.append(("preserveAfterDeletion", "YES")) }
        if let transformer = attribute.valueTransformerName { attributes.append(("valueTransformerName", transformer)) }
        if let className = attribute.attributeValueClassName { attributes.append(("customClassName", className)) }
        if attribute.usesScalarValueType { attributes.append(("usesScalarValueType", "YES")) }
        if let elementID = attribute.renamingIdentifier { attributes.append(("elementID", elementID)) }
        try writeProperty("attribute", attributes: attributes, userInfo: attribute.userInfo, into: &writer)
    }

    private static func write(_ relationship: RelationshipDescription, into writer: inout XMLWriter) throws {
        var attributes = commonAttributes(of: relationship)
        if relationship.isToMany { attributes.append(("toMany", "YES")) }
        if relationship.minCount > 0 { attributes.append(("minCount", String(relationship.minCount))) }
        if relationship.maxCount > 0 { attributes.append(("maxCount", String(relationship.maxCount))) }
        attributes.append(("deletionRule", relationship.deleteRule.rawValue))
        if relationship.isOrdered { attributes.append(("ordered", "YES")) }
        attributes.append(("destinationEntity", relationship.destinationEntityName))
        if let inverse = relationship.inverseName {
            attributes.append(("inverseName", inverse))
            attributes.append(("inverseEntity", relationship.destinationEntityName))
        }
        if let elementID = relationship.renamingIdentifier { attributes.append(("elementID", elementID)) }
        try writeProperty("relationship", attributes: attributes, userInfo: relationship.userInfo, into: &writer)
    }

    private static func write(_ fetched: FetchedPropertyDescription, into writer: inout XMLWriter) throws {
        var attributes: [(name: String, value: String)] = [("name", fetched.name)]
        if fetched.isOptional { attributes.append(("optional", "YES")) }
        if let elementID = fetched.renamingIdentifier { attributes.append(("elementID", elementID)) }
        try writer.startElement("fetchedProperty", attributes: attributes)
        var request: [(name: String, value: String)] = [
            ("name", "fetchedPropertyFetchRequest"),
            ("entity", fetched.destinationEntityName),
        ]
        if let predicate = fetched.predicate { request.append(("predicateString", predicate.predicateFormat)) }
        try writer.writeElement("fetchRequest", attributes: request)
        try writeUserInfo(fetched.userInfo, into: &writer)
        try writer.endElement()
    }

    private static func writeTemplate(
        _ template: FetchRequestTemplate, name: String,
        into writer: inout XMLWriter
    ) throws {
        var attributes: [(name: String, value: String)] = [("name", name), ("entity", template.entityName)]
        if let predicate = template.predicate { attributes.append(("predicateString", predicate.predicateFormat)) }
        if template.fetchLimit > 0 { attributes.append(("fetchLimit", String(template.fetchLimit))) }
        if template.fetchOffset > 0 { attributes.append(("fetchOffset", String(template.fetchOffset))) }
        if !template.includesSubentities { attributes.append(("includeSubentities", "NO")) }
        if !template.includesPendingChanges { attributes.append(("includePendingChanges", "NO")) }
        if !template.returnsObjectsAsFaults { attributes.append(("returnObjectsAsFaults", "NO")) }
        try writer.writeElement("fetchRequest", attributes: attributes)
    }

    /// `name`, `optional`, `transient`, `indexed`: the attributes every property element starts with.
    private static func commonAttributes(of property: PropertyDescription) -> [(name: String, value: String)] {
        var attributes: [(name: String, value: String)] = [("name", property.name)]
        if property.isOptional { attributes.append(("optional", "YES")) }
        if property.isTransient { attributes.append(("transient", "YES")) }
        if property.isIndexed { attributes.append(("indexed", "YES")) }
        if let modifier = property.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        return attributes
    }

    private static func writeProperty(
        _ element: String, attributes: [(name: String, value: String)],
        userInfo: [String: String], into writer: inout XMLWriter
    ) throws {
        try writer.startElement(element, attributes: attributes)
        try writeUserInfo(userInfo, into: &writer)
        try writer.endElement()
    }

    private static func writeUserInfo(_ userInfo: [String: String], into writer: inout XMLWriter) throws {
        guard !userInfo.isEmpty else { return }
        try writer.startElement("userInfo")
        for key in userInfo.keys.sorted() {
            try writer.writeElement("entry", attributes: [("key", key), ("value", userInfo[key]!)])
        }
        try writer.endElement()
    }
}

/// The `<composite>` definitions a model file needs: one per distinct composite (by its definition's name and
/// elements), named by ``CompositeAttributeDescription/definitionName`` or the attribute's capitalized name, with a
/// number appended when two different composites would share a name.
struct CompositeDefinitions {
    /// The definitions in the order first met, entities' attributes before their nested composites.
    private(set) var definitions: [(name: String, composite: CompositeAttributeDescription)] = []
    private var names: [ObjectIdentifier: String] = [:]

    init(_ model: ManagedObjectModel) {
        var signatures: [String: [String]] = [:]
        func add(_ composite: CompositeAttributeDescription) {
            guard names[ObjectIdentifier(composite)] == nil else { return }
            let base = composite.definitionName ?? (composite.name.prefix(1).uppercased() + composite.name.dropFirst())
            let signature = Self.signature(composite)
            var name = base
            var number = 1
            while let existing = signatures[name], existing != signature {
                number += 1
                name = base + String(number)
            }
            names[ObjectIdentifier(composite)] = name
            if signatures[name] == nil {
                signatures[name] = signature
                definitions.append((name, composite))
            }
            for case let nested as CompositeAttributeDescription in composite.elements { add(nested) }
        }
        for entity in model.entities {
            for case let composite as CompositeAttributeDescription in entity.properties { add(composite) }
        }
    }

    /// The definition name an attribute of type Composite refers to.
    func name(of composite: CompositeAttributeDescription) -> String? { names[ObjectIdentifier(composite)] }

    /// What makes two composites the same definition: their elements' names, types and nested elements.
    private static func signature(_ composite: CompositeAttributeDescription) -> [String] {
        composite.elements.flatMap { element -> [String] in
            let nested = (element as? CompositeAttributeDescription).map { ["("] + signature($0) + [")"] } ?? []
            return [element.name, element.attributeType.rawValue, element.isOptional ? "o" : "m"] + nested
        }
    }
}
