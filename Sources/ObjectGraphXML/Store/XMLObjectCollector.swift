import Foundation
import ObjectGraph

/// Collects the objects of an XML store as the reader meets them and turns them into records at the end, when
/// every reference key's entity is known (a reference names only a key, and the object may be of a sub-entity).
struct XMLObjectCollector {
    private struct Pending {
        var entity: Int32
        var key: Int64
        var line: Int32
        var values: [String: any Sendable]
        var referenceStart: Int32
        var referenceCount: Int32
    }

    private struct Reference {
        var relationship: RelationshipDescription
        var keyStart: Int32
        var keyCount: Int32
        var line: Int32
    }

    let schema: XMLStoreSchema
    let url: URL
    let ignoresUnknownProperties: Bool

    private var objects: [Pending] = []
    private var references: [Reference] = []
    private var referenceKeys: [Int64] = []
    private var entityOfKey: [Int64: Int32] = [:]
    private var current = Pending(entity: 0, key: 0, line: 0, values: [:], referenceStart: 0, referenceCount: 0)
    private var currentEntity: XMLStoreSchema.Entity?
    /// The position after the last property read: files list properties in a fixed order, so the next one is
    /// usually there and a string comparison replaces a dictionary lookup.
    private var expectedProperty = 0
    private var lastTypeName = ""
    private var lastEntityIndex = -1

    init(schema: XMLStoreSchema, url: URL, ignoresUnknownProperties: Bool) {
        self.schema = schema
        self.url = url
        self.ignoresUnknownProperties = ignoresUnknownProperties
    }

    // MARK: Collecting

    mutating func beginObject(typeName: String, id: String, line: Int) throws {
        if typeName != lastTypeName {
            lastEntityIndex = schema.entityIndex(named: typeName) ?? -1
            lastTypeName = typeName
        }
        let index = lastEntityIndex
        guard index >= 0 else {
            throw StoreError(
                code: .incompatibleModel,
                message: "The store holds objects of entity '\(typeName)' (line \(line)), which the "
                    + "model or the store's configuration lacks; open it with the model that wrote it.",
                context: ErrorContext(entityName: typeName, storeURL: url))
        }
        guard let key = Self.referenceKey(id[...]) else {
            throw XMLFormatError("The object id '\(id)' is not of the form zN.", line: line)
        }
        guard entityOfKey.updateValue(Int32(index), forKey: key) == nil else {
            throw XMLFormatError("Two objects have the id z\(key).", line: line)
        }
        let entity = schema.entities[index]
        currentEntity = entity
        expectedProperty = 0
        current = Pending(
            entity: Int32(index), key: key, line: Int32(clamping: line),
            values: Dictionary(minimumCapacity: entity.properties.count),
            referenceStart: Int32(references.count), referenceCount: 0)
    }

    mutating func addAttribute(name: String?, type: String?, text: String, line: Int) throws {
        guard let entity = currentEntity, let property = try property(named: name, in: entity, line: line) else {
            return
        }
        guard case .attribute(let attributeType) = property.kind else {
            throw XMLFormatError(
                "<attribute name=\"\(property.fileName)\"> names a relationship of "
                    + "\(entity.name).", line: line)
        }
        let decoded =
            property.composite.map { XMLValueCoding.decode(text, as: $0) }
            ?? XMLValueCoding.decode(text, as: attributeType, fileType: type)
        guard let value = decoded else {
            throw XMLFormatError(
                "The value of attribute '\(property.name)' of \(entity.name) (object "
                    + "z\(current.key)) is not a valid \(attributeType.rawValue) value.", line: line)
        }
        current.values[property.name] = value
    }

    mutating func addRelationship(name: String?, idrefs: String?, line: Int) throws {
        guard let entity = currentEntity, let property = try property(named: name, in: entity, line: line) else {
            return
        }
        guard case .relationship(let relationship) = property.kind else {
            throw XMLFormatError(
                "<relationship name=\"\(property.fileName)\"> names an attribute of "
                    + "\(entity.name).", line: line)
        }
        guard let idrefs, !idrefs.isEmpty else { return }
        let start = referenceKeys.count
        guard Self.appendReferenceKeys(idrefs, to: &referenceKeys) else {
            referenceKeys.removeSubrange(start...)
            throw XMLFormatError(
                "The idrefs of relationship '\(property.name)' of \(entity.name) are not a list "
                    + "of zN ids.", line: line)
        }
        let count = referenceKeys.count - start
        if count == 0 { return }
        guard relationship.isToMany || count == 1 else {
            throw XMLFormatError(
                "The to-one relationship '\(property.name)' of \(entity.name) refers to "
                    + "\(count) objects.", line: line)
        }
        references.append(
            Reference(
                relationship: relationship, keyStart: Int32(start), keyCount: Int32(count),
                line: Int32(clamping: line)))
        current.referenceCount += 1
    }

    mutating func endObject() {
        objects.append(current)
        current.values = [:]
        currentEntity = nil
    }

    private mutating func property(
        named name: String?, in entity: XMLStoreSchema.Entity,
        line: Int
    ) throws -> XMLStoreSchema.Property? {
        guard let name else {
            throw XMLFormatError("A property of an \(entity.name) object has no name.", line: line)
        }
        let properties = entity.properties
        var position = expectedProperty
        while position < properties.count, position < expectedProperty + 3 {
            if properties[position].fileName == name {
                expectedProperty = position + 1
                return properties[position]
            }
            position += 1
        }
        if let property = entity.property(named: name) { return property }
        if ignoresUnknownProperties { return nil }
        throw StoreError(
            code: .incompatibleModel,
            message: "The store has a property '\(name)' of entity \(entity.name) (line \(line)) which "
                + "the model lacks; open it with the model that wrote it.",
            context: ErrorContext(entityName: entity.name, key: name, storeURL: url))
    }

    // MARK: Records

    /// The records, with every reference resolved to an object ID of the store.
    mutating func makeRecords(storeIdentifier: String) throws(StoreError) -> [StoreRecord] {
        var records: [StoreRecord] = []
        records.reserveCapacity(objects.count)
        let entities = schema.entities
        for position in objects.indices {
            var values: [String: any Sendable] = [:]
            swap(&values, &objects[position].values)  // moves the values out without copying them
            let object = objects[position]
            let end = Int(object.referenceStart + object.referenceCount)
            for reference in references[Int(object.referenceStart)..<end] {
                let relationship = reference.relationship
                var ids: [ManagedObjectID] = []
                ids.reserveCapacity(Int(reference.keyCount))
                let keyEnd = Int(reference.keyStart + reference.keyCount)
                for key in referenceKeys[Int(reference.keyStart)..<keyEnd] {
                    guard let index = entityOfKey[key] else {
                        throw corrupt(
                            "Relationship '\(relationship.name)' of object z\(object.key) refers to z\(key), "
                                + "which the store lacks.", line: reference.line)
                    }
                    let target = entities[Int(index)]
                    if let destination = relationship.destinationEntity, !target.description.isKind(of: destination) {
                        throw corrupt(
                            "Relationship '\(relationship.name)' of object z\(object.key) refers to z\(key), "
                                + "a \(target.name), not a \(destination.name).", line: reference.line)
                    }
                    // Same as PersistentStore.objectID(forEntityName:referenceKey:), with the identifier hoisted.
                    ids.append(
                        ManagedObjectID(
                            entityName: target.name, storeIdentifier: storeIdentifier,
                            referenceKey: key))
                }
                values[relationship.name] = relationship.isToMany ? ids : ids[0]
            }
            let id = ManagedObjectID(
                entityName: entities[Int(object.entity)].name, storeIdentifier: storeIdentifier,
                referenceKey: object.key)
            records.append(StoreRecord(objectID: id, values: values))
        }
        return records
    }

    private func corrupt(_ message: String, line: Int32) -> StoreError {
        StoreError(
            code: .corruptFile, message: "\(url.lastPathComponent) is damaged (line \(line)): \(message)",
            context: ErrorContext(storeURL: url))
    }

    // MARK: IDs

    /// The key of an id `zN` (Core Data's form) or `N`; `nil` for anything else or a key below 1.
    static func referenceKey(_ id: Substring) -> Int64? {
        var utf8 = id.utf8[...]
        if utf8.first == UInt8(ascii: "z") { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value > 0 ? value : nil
    }

    /// Appends the keys of a white-space separated id list; `false` if an id is malformed.
    static func appendReferenceKeys(_ idrefs: String, to keys: inout [Int64]) -> Bool {
        var value: Int64 = 0
        var digits = 0
        var inID = false
        for byte in idrefs.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                if inID {
                    guard digits > 0, value > 0 else { return false }
                    keys.append(value)
                }
                inID = false
                value = 0
                digits = 0
            case UInt8(ascii: "z") where !inID:
                inID = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                inID = true
                digits += 1
                guard digits <= 18 else { return false }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            default:
                return false
            }
        }
        if inID {
            guard digits > 0, value > 0 else { return false }
            keys.append(value)
        }
        return true
    }
}
