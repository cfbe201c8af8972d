import CZlib
import Foundation
import ObjectGraph

/// Archives a model in the shape of Core Data's model cache (an `NSKeyedArchiver` archive of
/// `NSManagedObjectModel`, `NSEntityDescription`, `NSAttributeDescription` and `NSRelationshipDescription`
/// objects, raw-deflated), with the keys ``ModelCacheDecoder`` reads: what a store needs to be opened without its
/// model (entities, inheritance, attributes and their types, relationships with inverses, counts, delete rules and
/// order). ObjectGraph's SQLite stores keep it in their metadata under ``metadataKey`` (see
/// `ManagedObjectModel(contentsOfStoreAt:)`).
enum ModelCacheEncoder {
    /// The metadata key of ObjectGraph's own model cache. Not `Z_MODELCACHE`: Core Data reads that table when it
    /// migrates a store whose model it cannot find, and this archive lacks most of what Core Data's own holds.
    static let metadataKey = "ObjectGraphModelCache"
    /// An attribute's flags in Core Data's archive (`NSAttributeDescription`'s coder writes them as one integer):
    /// ``externalStorageFlag`` for `allowsExternalBinaryDataStorage`, ``preservesValueFlag`` for
    /// `preservesValueInHistoryOnDeletion` (0x20, file-backed futures, has no counterpart here). Real caches agree:
    /// knowledgeC's CloudKit record fields, kept in deletions' tombstones, carry 0x10.
    static let attributeFlagsKey = "NSFlagsKey"
    static let externalStorageFlag: Int64 = 0x4
    static let preservesValueFlag: Int64 = 0x10
    /// The key of a derived attribute's derivation, as its format string. Core Data's coder keeps an archived
    /// `NSExpression` under `NSDerivationExpression` instead, which these caches do not write (no writer of
    /// `NSExpression` archives here): Core Data reading one of them sees the derived attribute's stored values only.
    static let derivationKey = "_ObjectGraphDerivationFormat"

    /// The model's archive, raw-deflated as Core Data stores its cache.
    static func compressedArchive(of model: ManagedObjectModel) -> Data? {
        RawDeflate.deflate(archive(of: model))
    }

    /// The model's keyed archive (a binary property list).
    static func archive(of model: ManagedObjectModel) -> Data {
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        let entities = model.entities.sorted { $0.name < $1.name }
        let entityUIDs = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, writer.reserve()) })
        for entity in entities {
            var propertyEntries: [(key: String, uid: Int)] = []
            // Inherited properties are archived by the entity that declares them, as Core Data does.
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                guard
                    let uid = archive(
                        property, entityUID: entityUIDs[entity.name]!, entityUIDs: entityUIDs,
                        writer: &writer)
                else { continue }
                propertyEntries.append((property.name, uid))
            }
            var values: [String: PropertyListValue] = [
                "NSEntityName": writer.string(entity.name),
                "NSClassNameForEntity": writer.string(entity.managedObjectClassName),
                "NSIsAbstract": .bool(entity.isAbstract),
                "NSManagedObjectModel": .uid(root),
                "NSProperties": writer.dictionary(propertyEntries),
            ]
            if let parent = entity.superentity { values["NSSuperentity"] = .uid(entityUIDs[parent.name]!) }
            if !entity.userInfo.isEmpty { values["NSUserInfo"] = userInfo(entity.userInfo, writer: &writer) }
            if let renamed = entity.renamingIdentifier { values["NSRenamingIdentifier"] = writer.string(renamed) }
            if let modifier = entity.versionHashModifier { values["NSVersionHashModifier"] = writer.string(modifier) }
            if !entity.indexes.isEmpty {
                values["NSFetchIndexDescriptions"] = fetchIndexes(entity.indexes, writer: &writer)
            }
            if !entity.uniquenessConstraints.isEmpty {
                var tuples: [Int] = []
                for tuple in entity.uniquenessConstraints {
                    let names = tuple.map { PropertyListValue.uid(writer.stringUID($0)) }
                    tuples.append(writer.add(className: "NSArray", values: ["NS.objects": .array(names)]))
                }
                values["NSUniqueTuples"] = writer.array(tuples)
            }
            writer.set(entityUIDs[entity.name]!, className: "NSEntityDescription", values: values)
        }
        let entries = entities.map { (key: $0.name, uid: entityUIDs[$0.name]!) }
        var modelValues: [String: PropertyListValue] = ["NSEntities": writer.dictionary(entries)]
        if !model.configurations.isEmpty {
            var configurations: [(key: String, uid: Int)] = []
            for name in model.configurations.sorted() {
                let members = (model.entities(forConfigurationName: name) ?? []).compactMap { entityUIDs[$0.name] }
                let list = PropertyListValue.array(members.map { .uid($0) })
                configurations.append((name, writer.add(className: "NSArray", values: ["NS.objects": list])))
            }
            modelValues["NSConfigurations"] = writer.dictionary(configurations)
        }
        if !model.versionIdentifiers.isEmpty {
            let identifiers = model.versionIdentifiers.sorted().map { writer.stringUID($0) }
            modelValues["NSVersionIdentifiers"] = writer.array(identifiers)
        }
        writer.set(root, className: "NSManagedObjectModel", values: modelValues)
        return writer.encoded(root: root)
    }

    /// Archives one property; `nil` for the kinds a store file does not need (fetched properties).
    private static func archive(
        _ property: PropertyDescription, entityUID: Int, entityUIDs: [String: Int],
        writer: inout KeyedArchiveWriter
    ) -> Int? {
        var values: [String: PropertyListValue] = [
            "NSPropertyName": writer.string(property.name),
            "NSIsOptional": .bool(property.isOptional),
            "NSIsTransient": .bool(property.isTransient),
            "NSEntity": .uid(entityUID),
        ]
        if let renamed = property.renamingIdentifier { values["NSRenamingIdentifier"] = writer.string(renamed) }
        if let modifier = property.versionHashModifier { values["NSVersionHashModifier"] = writer.string(modifier) }
        if !property.userInfo.isEmpty { values["NSUserInfo"] = userInfo(property.userInfo, writer: &writer) }
        if property.isIndexed { values["NSIsIndexed"] = .bool(true) }
        switch property {
        case let attribute as AttributeDescription:
            let code = attribute.attributeType.coreDataCode
            values["NSAttributeType"] = .integer(code)
            if let name = attribute.valueTransformerName { values["NSValueTransformerName"] = writer.string(name) }
            values[Self.attributeFlagsKey] = .integer(
                (attribute.allowsExternalBinaryDataStorage ? Self.externalStorageFlag : 0)
                    | (attribute.preservesValueInHistoryOnDeletion ? Self.preservesValueFlag : 0))
            if let name = attribute.attributeValueClassName {
                values["NSAttributeValueClassName"] = writer.string(name)
            }
            if let value = attribute.defaultValue.flatMap({ defaultValue($0, writer: &writer) }) {
                values["NSDefaultValue"] = value
            }
            if let composite = attribute as? CompositeAttributeDescription {
                let elements = composite.elements.compactMap {
                    archive($0, entityUID: entityUID, entityUIDs: entityUIDs, writer: &writer)
                }
                values[ModelCacheDecoder.compositeElementsKey] = writer.array(elements)
                return writer.add(
                    className: "NSCompositeAttributeDescription",
                    superclasses: ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
                    values: values)
            }
            if let derived = attribute as? DerivedAttributeDescription, let format = derived.derivationFormat {
                values[derivationKey] = writer.string(format)
                return writer.add(
                    className: "NSDerivedAttributeDescription",
                    superclasses: ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
                    values: values)
            }
            return writer.add(
                className: "NSAttributeDescription", superclasses: ["NSPropertyDescription", "NSObject"],
                values: values)
        case let relationship as RelationshipDescription:
            values["_NSDestinationEntityName"] = writer.string(relationship.destinationEntityName)
            if let uid = entityUIDs[relationship.destinationEntityName] { values["NSDestinationEntity"] = .uid(uid) }
            if let inverse = relationship.inverseName { values["_NSInverseRelationshipName"] = writer.string(inverse) }
            values["NSMinCount"] = .integer(Int64(relationship.minCount))
            values["NSMaxCount"] = .integer(Int64(relationship.maxCount))
            values["NSIsOrdered"] = .bool(relationship.isOrdered)
            values["NSDeleteRule"] = .integer(
                ModelCacheDecoder.deleteRuleCodes.first { $0.rule == relationship.deleteRule }?.code ?? 1)
            return writer.add(
                className: "NSRelationshipDescription",
                superclasses: ["NSPropertyDescription", "NSObject"], values: values)
        default:
            return nil
        }
    }
}

extension ModelCacheEncoder {
    /// A default value as Core Data archives it: numbers and flags in place, strings and data as objects, dates as
    /// `NSDate` (`NS.time`); `nil` for the kinds the decoder does not read back (decimals, UUIDs, URIs,
    /// transformable values), which are left out.
    private static func defaultValue(_ value: any Sendable, writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        switch value {
        case let flag as Bool: .bool(flag)
        case let number as Int: .integer(Int64(number))
        case let number as Double: .real(number)
        case let number as Float: .real(Double(number))
        case let string as String: writer.string(string)
        case let data as Data: .uid(writer.add(className: "NSData", values: ["NS.data": .data(data)]))
        case let date as Date:
            .uid(writer.add(className: "NSDate", values: ["NS.time": .real(date.timeIntervalSinceReferenceDate)]))
        default: nil
        }
    }

    /// Fetch indexes as Core Data archives them: `NSFetchIndexDescription`s of `NSFetchIndexElementDescription`s.
    private static func fetchIndexes(_ indexes: [FetchIndexDescription], writer: inout KeyedArchiveWriter)
        -> PropertyListValue
    {
        var uids: [Int] = []
        for index in indexes {
            var elements: [Int] = []
            for name in index.propertyNames {
                elements.append(
                    writer.add(
                        className: "NSFetchIndexElementDescription",
                        values: [
                            "NSPropertyName": writer.string(name), "NSFetchIndexElementType": .integer(0),
                            "NSAscending": .bool(!index.descending.contains(name)),
                        ]))
            }
            let list = writer.array(elements)
            uids.append(
                writer.add(
                    className: "NSFetchIndexDescription",
                    values: [
                        "NSIndexName": writer.string(index.name), "NSIndexElements": list,
                    ]))
        }
        return writer.array(uids)
    }

    /// A user info dictionary, as an `NSDictionary` of strings (keys in order, so archives repeat byte for byte).
    private static func userInfo(_ info: [String: String], writer: inout KeyedArchiveWriter) -> PropertyListValue {
        var entries: [(key: String, uid: Int)] = []
        for key in info.keys.sorted() { entries.append((key, writer.stringUID(info[key]!))) }
        return writer.dictionary(entries)
    }
}

/// Compresses data as raw deflate (no zlib header), as Core Data stores its model cache; ``RawInflate`` reverses
/// it.
enum RawDeflate {
    static func deflate(_ data: Data) -> Data? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))))
        let written: Int? = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                // The output buffer holds deflateBound's worst case, so one call finishes the stream.
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return target.count - Int(stream.avail_out)
            }
        }
        guard let written else { return nil }
        return Data(output.prefix(written))
    }
}
