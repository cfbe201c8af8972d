import Foundation
import ObjectGraph

extension MappingModel {
    /// Reads an Xcode mapping model: an `.xcmappingmodel` folder, or its `xcmapping.xml` file.
    ///
    /// `xcmapping.xml` is a Core Data XML store of Xcode's own objects (`XDDevMappingModel`, `XDDevEntityMapping`,
    /// `XDDevAttributeMapping`, `XDDevRelationshipMapping`). The entity mappings are those the mapping model object
    /// lists, in `mappingnumber` order; a mapping without a name gets Core Data's `SourceToDestination`. Custom
    /// value expressions (`valueexpressiondata`, archived `NSExpression`s) are decoded; mappings Xcode generates get
    /// the expressions Xcode would compile: `$source.NAME` for attributes and
    /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "NAME", $source.NAME)`
    /// for relationships. `mappingtypename` `Undefined` becomes `.add`,
    /// `.remove`, `.custom` (a policy class and nothing generated) or
    /// `.transform` as the source and destination say.
    ///
    /// - Throws: `MigrationError/Code/invalidMappingFile` when the file is missing or is not such a store.
    public convenience init(contentsOf url: URL) throws {
        var isDirectory: ObjCBool = false
        let file =
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? url.appendingPathComponent("xcmapping.xml") : url
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw MigrationError(
                code: .invalidMappingFile, message: "There is no mapping model at \(file.path).",
                context: ErrorContext(storeURL: file))
        }
        let records: [StoreRecord]
        do {
            XMLStore.register()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try XcodeMappingStore.model())
            let store = try coordinator.addPersistentStore(
                type: .xml, at: file, options: [.readOnly: true, .ignoresModelVersion: true])
            defer { try? coordinator.remove(store) }
            records = try store.allRecords()
        } catch {
            throw MigrationError(
                code: .invalidMappingFile,
                message: "\(file.path) is not an Xcode mapping model: \(error)",
                context: ErrorContext(storeURL: file), cause: error)
        }
        self.init(entityMappings: try XcodeMappingStore.entityMappings(from: records, file: file))
    }
}

/// The objects of Xcode's mapping model store, turned into entity mappings.
enum XcodeMappingStore {
    /// The model of Xcode's mapping objects (the store file lower-cases property names and upper-cases entities).
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" \
        systemVersion="" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="XDDevMappingModel" representedClassName="XDDevMappingModel">
                <attribute name="sourceModelPath" optional="YES" attributeType="String"/>
                <attribute name="sourceModelData" optional="YES" attributeType="Binary"/>
                <attribute name="destinationModelPath" optional="YES" attributeType="String"/>
                <attribute name="destinationModelData" optional="YES" attributeType="Binary"/>
                <relationship name="entityMappings" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" \
        destinationEntity="XDDevEntityMapping" inverseName="mappingModel" inverseEntity="XDDevEntityMapping"/>
            </entity>
            <entity name="XDDevEntityMapping" representedClassName="XDDevEntityMapping">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="sourceName" optional="YES" attributeType="String"/>
                <attribute name="destinationName" optional="YES" attributeType="String"/>
                <attribute name="mappingTypeName" optional="YES" attributeType="String"/>
                <attribute name="mappingNumber" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
                <attribute name="autogenerateExpression" optional="YES" attributeType="Boolean"/>
                <attribute name="migrationPolicyClassName" optional="YES" attributeType="String"/>
                <relationship name="mappingModel" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevMappingModel" inverseName="entityMappings" inverseEntity="XDDevMappingModel"/>
                <relationship name="attributeMappings" optional="YES" toMany="YES" deletionRule="Cascade" \
        ordered="YES" \
        destinationEntity="XDDevAttributeMapping" inverseName="entityMapping" inverseEntity="XDDevAttributeMapping"/>
                <relationship name="relationshipMappings" optional="YES" toMany="YES" deletionRule="Cascade" \
        ordered="YES" destinationEntity="XDDevRelationshipMapping" inverseName="entityMapping" \
        inverseEntity="XDDevRelationshipMapping"/>
            </entity>
            <entity name="XDDevPropertyMapping" representedClassName="XDDevPropertyMapping" isAbstract="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="autogenerateExpression" optional="YES" attributeType="Boolean"/>
                <attribute name="valueExpressionData" optional="YES" attributeType="Binary"/>
            </entity>
            <entity name="XDDevAttributeMapping" representedClassName="XDDevAttributeMapping" \
        parentEntity="XDDevPropertyMapping">
                <relationship name="entityMapping" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevEntityMapping" inverseName="attributeMappings" inverseEntity="XDDevEntityMapping"/>
            </entity>
            <entity name="XDDevRelationshipMapping" representedClassName="XDDevRelationshipMapping" \
        parentEntity="XDDevPropertyMapping">
                <relationship name="entityMapping" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="XDDevEntityMapping" inverseName="relationshipMappings" \
        inverseEntity="XDDevEntityMapping"/>
            </entity>
        </model>
        """

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(xmlData: Data(contents.utf8), name: "XDDevMappingModel.xcdatamodel/contents")
    }

    static func entityMappings(from records: [StoreRecord], file: URL) throws -> [EntityMapping] {
        let byID = Dictionary(records.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        guard let root = records.first(where: { $0.objectID.entityName == "XDDevMappingModel" }) else {
            throw MigrationError(
                code: .invalidMappingFile, message: "\(file.path) holds no XDDevMappingModel.",
                context: ErrorContext(storeURL: file))
        }
        let listed = (root["entityMappings"] as? [ManagedObjectID] ?? []).compactMap { byID[$0] }
        let ordered = listed.enumerated().sorted { lhs, rhs in
            let left = lhs.element["mappingNumber"] as? Int ?? Int.max
            let right = rhs.element["mappingNumber"] as? Int ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
        return try ordered.map { try entityMapping($0, byID: byID) }
    }

    private static func entityMapping(_ record: StoreRecord, byID: [ManagedObjectID: StoreRecord]) throws
        -> EntityMapping
    {
        let source = nonEmpty(record["sourceName"] as? String)
        let destination = nonEmpty(record["destinationName"] as? String)
        let generates = record["autogenerateExpression"] as? Bool ?? false
        let policy = nonEmpty(record["migrationPolicyClassName"] as? String)
        let mapping = EntityMapping(
            name: nonEmpty(record["name"] as? String)
                ?? EntityMapping.defaultName(
                    source: source,
                    destination: destination),
            mappingType: .transform, sourceEntityName: source, destinationEntityName: destination,
            entityMigrationPolicyClassName: policy)
        for id in record["attributeMappings"] as? [ManagedObjectID] ?? [] {
            guard let property = byID[id], let name = property["name"] as? String else { continue }
            mapping.attributeMappings.append(
                PropertyMapping(
                    name: name,
                    valueExpression: try expression(property, source: source) {
                        .member(of: .variable("source"), keyPath: name)
                    }))
        }
        for id in record["relationshipMappings"] as? [ManagedObjectID] ?? [] {
            guard let property = byID[id], let name = property["name"] as? String else { continue }
            mapping.relationshipMappings.append(
                PropertyMapping(
                    name: name,
                    valueExpression: try expression(property, source: source) {
                        .selectorCall(
                            .variable("manager"), MigrationManager.destinationInstancesForSourceRelationship,
                            [.constant(.string(name)), .member(of: .variable("source"), keyPath: name)])
                    }))
        }
        mapping.attributeMappings.sort { $0.name < $1.name }
        mapping.relationshipMappings.sort { $0.name < $1.name }
        mapping.mappingType = mappingType(
            record["mappingTypeName"] as? String, source: source,
            destination: destination, policy: policy, generates: generates)
        return mapping
    }

    /// A property mapping's expression: the archived one, else the generated one when the source entity has one.
    private static func expression(
        _ record: StoreRecord, source: String?,
        generated: () -> ObjectExpression
    ) throws -> ObjectExpression? {
        if let data = record["valueExpressionData"] as? Data, !data.isEmpty {
            return try ObjectExpression(archivedData: data)
        }
        return source == nil ? nil : generated()
    }

    private static func mappingType(
        _ name: String?, source: String?, destination: String?, policy: String?,
        generates: Bool
    ) -> EntityMappingType {
        switch name?.lowercased() {
        case "add", "addentitymappingtype": return .add
        case "remove", "removeentitymappingtype": return .remove
        case "copy", "copyentitymappingtype": return .copy
        case "custom", "customentitymappingtype": return .custom
        case "transform", "transformentitymappingtype": return .transform
        default:
            if source == nil { return .add }
            if destination == nil { return .remove }
            if policy != nil, !generates { return .custom }
            return .transform
        }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
