import Foundation
import ObjectGraph
import SafeXML

/// Reads the `contents` XML of an Xcode model (`.xcdatamodel`) with the streaming pull parser.
///
/// Reads `entity` (with `attribute`, `relationship`, `fetchedProperty`, `userInfo`, `uniquenessConstraints`,
/// `fetchIndex`), `fetchRequest` templates and `configuration`s; skips `elements` (diagram positions) and every
/// element or attribute it does not know. Names of other entities are collected with their lines and checked when
/// the model is assembled.
struct ModelFileReader: ~Copyable {
    var parser: XMLPullParser
    /// The file's name, for messages.
    let name: String
    var contents = ModelFileContents()

    init(data: Data, name: String) throws(ModelError) {
        self.name = name
        do {
            parser = try XMLPullParser(data: data, name: name)
        } catch {
            throw ModelError(
                code: .invalidModelFile, message: "Could not read the model file \(name): \(error.message)",
                cause: error)
        }
    }

    /// Reads the whole document.
    ///
    /// - Throws: ``ObjectGraph/ModelError/Code/invalidModelFile`` naming the element and its line.
    consuming func read() throws(ModelError) -> ModelFileContents {
        do {
            guard let root = try parser.nextChildElement() else {
                throw XMLFormatError("The model file has no root element.", line: 0)
            }
            guard root.name == "model" else {
                throw XMLFormatError(
                    "The root element is <\(root.name)>, not <model>: this is not the contents of an "
                        + "Xcode data model.", line: root.line)
            }
            if let identifier = root[attribute: "userDefinedModelVersionIdentifier"], !identifier.isEmpty {
                contents.versionIdentifier = identifier
            }
            while let child = try parser.nextChildElement() {
                switch child.name {
                case "entity": try readEntity(child)
                case "fetchRequest": try readTemplate(child)
                case "configuration": try readConfiguration(child)
                case "composite", "compositeAttribute": try readCompositeDefinition(child)
                default: try parser.skipElement()  // <elements> and anything newer
                }
            }
            while try parser.next() != nil {}
            return contents
        } catch {
            throw modelError(error)
        }
    }

    // MARK: Entities

    private mutating func readEntity(_ start: XMLElementStart) throws {
        let entityName = try required("name", of: start)
        guard !contents.entities.contains(where: { $0.name == entityName }) else {
            throw XMLFormatError("<entity name=\"\(entityName)\"> is defined twice.", line: start.line)
        }
        let entity = EntityDescription(name: entityName)
        if let className = start[attribute: "representedClassName"], !className.isEmpty {
            entity.managedObjectClassName = className
        }
        if let codeGeneration = nonEmpty(start[attribute: "codeGenerationType"]) {
            contents.codeGenerationTypes[entityName] = codeGeneration
        }
        entity.isAbstract = Self.flag(start[attribute: "isAbstract"])
        entity.renamingIdentifier = nonEmpty(start[attribute: "elementID"])
        entity.versionHashModifier = nonEmpty(start[attribute: "versionHashModifier"])
        if let parent = nonEmpty(start[attribute: "parentEntity"]) {
            contents.parents.append(.init(entity: entity, parentName: parent, line: start.line))
        }
        var properties: [PropertyDescription] = []
        while let child = try parser.nextChildElement() {
            switch child.name {
            case "attribute": properties.append(try readAttribute(child, entity: entityName))
            case "relationship": properties.append(try readRelationship(child, entity: entity))
            case "fetchedProperty": properties.append(try readFetchedProperty(child, entity: entityName))
            case "userInfo": entity.userInfo = try readUserInfo()
            case "uniquenessConstraints": entity.uniquenessConstraints = try readUniquenessConstraints()
            case "fetchIndex": entity.indexes.append(try readFetchIndex(child))
            default: try parser.skipElement()
            }
        }
        let names = properties.map(\.name)
        if let duplicate = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw XMLFormatError("Entity \(entityName) declares property '\(duplicate)' twice.", line: start.line)
        }
        entity.properties = properties
        contents.entities.append(entity)
    }

    /// A `<composite name="Magnitude">` of the model (Xcode's list of Composite Attributes): its `<attribute>`
    /// elements, which entities' attributes of type Composite take as their elements.
    private mutating func readCompositeDefinition(_ start: XMLElementStart) throws {
        let name = try required("name", of: start)
        guard contents.compositeDefinitions[name] == nil else {
            throw XMLFormatError("<composite name=\"\(name)\"> is defined twice.", line: start.line)
        }
        var elements: [AttributeDescription] = []
        let firstUse = contents.compositeUses.count
        defer {
            for index in firstUse..<contents.compositeUses.count { contents.compositeUses[index].inDefinition = true }
        }
        while let child = try parser.nextChildElement() {
            guard child.name == "attribute" else {
                try parser.skipElement()
                continue
            }
            let element = try readAttribute(child, entity: "composite \(name)")
            guard !elements.contains(where: { $0.name == element.name }) else {
                throw XMLFormatError(
                    "<composite name=\"\(name)\"> declares element '\(element.name)' twice.", line: child.line)
            }
            elements.append(element)
        }
        contents.compositeDefinitions[name] = .init(elements: elements, line: start.line)
    }

    mutating func readUserInfo() throws -> [String: String] {
        var userInfo: [String: String] = [:]
        while let entry = try parser.nextChildElement() {
            if entry.name == "entry", let key = entry[attribute: "key"] {
                userInfo[key] = entry[attribute: "value"] ?? ""
            }
            try parser.skipElement()
        }
        return userInfo
    }

    private mutating func readUniquenessConstraints() throws -> [[String]] {
        var constraints: [[String]] = []
        while let constraint = try parser.nextChildElement() {
            guard constraint.name == "uniquenessConstraint" else {
                try parser.skipElement()
                continue
            }
            var names: [String] = []
            while let element = try parser.nextChildElement() {
                if element.name == "constraint", let value = element[attribute: "value"] { names.append(value) }
                try parser.skipElement()
            }
            constraints.append(names)
        }
        return constraints
    }

    private mutating func readFetchIndex(_ start: XMLElementStart) throws -> FetchIndexDescription {
        var index = FetchIndexDescription(name: start[attribute: "name"] ?? "", propertyNames: [])
        while let element = try parser.nextChildElement() {
            if element.name == "fetchIndexElement", let property = element[attribute: "property"] {
                index.propertyNames.append(property)
                if element[attribute: "order"] == "descending" { index.descending.insert(property) }
            }
            try parser.skipElement()
        }
        return index
    }

    // MARK: Templates and configurations

    private mutating func readTemplate(_ start: XMLElementStart) throws {
        let templateName = try required("name", of: start)
        let entityName = try required("entity", of: start)
        contents.references.append(
            .init(
                element: "fetchRequest", attribute: "entity", entityName: entityName,
                owner: nil, key: templateName, line: start.line))
        var template = FetchRequestTemplate(entityName: entityName)
        template.predicate = try predicate(start, owner: "fetch request template '\(templateName)'")
        template.fetchLimit = try integer("fetchLimit", of: start) ?? 0
        template.fetchOffset = try integer("fetchOffset", of: start) ?? 0
        template.includesSubentities = Self.flag(start[attribute: "includeSubentities"], default: true)
        template.includesPendingChanges = Self.flag(start[attribute: "includePendingChanges"], default: true)
        template.returnsObjectsAsFaults = Self.flag(start[attribute: "returnObjectsAsFaults"], default: true)
        // fetchBatchSize, resultType, returnDistinctResults and includePropertyValues have no place in a
        // FetchRequestTemplate and are ignored.
        try parser.skipElement()
        contents.templates.append((templateName, template))
    }

    private mutating func readConfiguration(_ start: XMLElementStart) throws {
        let configurationName = try required("name", of: start)
        var members: [String] = []
        while let member = try parser.nextChildElement() {
            if member.name == "memberEntity" {
                let entityName = try required("name", of: member)
                members.append(entityName)
                contents.references.append(
                    .init(
                        element: "memberEntity", attribute: "name", entityName: entityName,
                        owner: nil, key: configurationName, line: member.line))
            }
            try parser.skipElement()
        }
        contents.configurations.append(.init(name: configurationName, memberNames: members, line: start.line))
    }

    // MARK: Helpers

    func required(_ attribute: String, of start: XMLElementStart) throws -> String {
        guard let value = start[attribute: attribute], !value.isEmpty else {
            throw XMLFormatError("<\(start.name)> lacks its \(attribute) attribute.", line: start.line)
        }
        return value
    }

    func integer(_ attribute: String, of start: XMLElementStart) throws -> Int? {
        guard let text = nonEmpty(start[attribute: attribute]) else { return nil }
        guard let value = XMLNumberFormat.integer(text) else {
            throw XMLFormatError(
                "<\(start.name)> has \(attribute)=\"\(text)\", which is not a whole number.",
                line: start.line)
        }
        return value
    }

    /// The `predicateString` of a fetch request element, parsed.
    func predicate(_ start: XMLElementStart, owner: String) throws -> ObjectPredicate? {
        guard let format = nonEmpty(start[attribute: "predicateString"]) else { return nil }
        do {
            return try ObjectPredicate(format: format)
        } catch {
            throw ModelError(
                code: .invalidModelFile,
                message: "\(name):\(start.line): <\(start.name)> of \(owner) has a malformed "
                    + "predicateString (\(error)); fix the predicate in the model editor.",
                cause: error)
        }
    }

    func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// An Xcode Boolean attribute: `YES` is true, `NO` false, absent `default`.
    static func flag(_ value: String?, default defaultValue: Bool = false) -> Bool {
        guard let value else { return defaultValue }
        return value == "YES" || value == "yes" || value == "true" || value == "1"
    }

    /// Converts a reading failure into a model error naming the file and line.
    func modelError(_ error: any Error) -> ModelError {
        switch error {
        case let error as ModelError:
            return error
        case let error as XMLFormatError:
            return ModelError(code: .invalidModelFile, message: "\(name):\(error.line): \(error.message)")
        case let error as XMLError:
            return ModelError(
                code: .invalidModelFile,
                message: "\(name):\(error.line): the model file is not readable XML: \(error.message)",
                cause: error)
        default:
            return ModelError(
                code: .invalidModelFile, message: "\(name): the model file could not be read.",
                cause: error)
        }
    }
}
