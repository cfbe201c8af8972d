import Foundation
import ObjectGraph
import SafeXML

/// Encodes an atomic store's records in Core Data's XML store format, deterministically: the same records and
/// metadata always give the same bytes.
///
/// Layout: the XML declaration, Core Data's DOCTYPE, `<database>` with `<databaseInfo>` (`<version>`, `<UUID>`,
/// `<nextObjectID>`, `<metadata>` holding a property list with sorted keys), then one `<object type="ENTITY"
/// id="zN">` per record in the order given, its attributes by name (nil values omitted) and then its
/// relationships by name (`type="1/1"` to-one, `"0/0"` to-many, `idrefs` omitted when empty).
enum XMLStoreWriter {
    /// The format version Core Data writes in `<version>`.
    static let formatVersion = "134481920"
    /// The system identifier of Core Data's DOCTYPE (never loaded).
    static let documentTypeSystemID = "file:///System/Library/DTDs/CoreData.dtd"

    /// The file's bytes.
    ///
    /// - Throws: ``StoreError/Code/io`` naming the entity and key when a value cannot be written (a string with a
    ///   character XML 1.0 cannot hold, a transformable value that is not `Data` or `String`, a reference to an
    ///   object of another store).
    static func encode(
        records: [StoreRecord], metadata: StoreMetadata, nextObjectID: Int64, schema: XMLStoreSchema,
        storeIdentifier: String, url: URL?
    ) throws(StoreError) -> Data {
        var writer = XMLWriter(capacity: max(4096, records.count * 320))
        var context = ErrorContext(storeURL: url)
        do {
            writer.writeDeclaration(standalone: true)
            try writer.writeDocumentType(name: XMLStoreReader.rootElementName, systemID: documentTypeSystemID)
            try writer.startElement(XMLStoreReader.rootElementName)
            try writeDatabaseInfo(metadata: metadata, nextObjectID: nextObjectID, into: &writer)
            var entity: XMLStoreSchema.Entity?
            for record in records {
                let id = record.objectID
                context.entityName = id.entityName
                context.objectID = id
                if entity?.name != id.entityName { entity = schema.entity(named: id.entityName) }
                guard let entity else {
                    throw XMLFormatError("The store's configuration does not hold entity \(id.entityName).", line: 0)
                }
                try writeObject(
                    record, entity: entity, schema: schema, storeIdentifier: storeIdentifier,
                    into: &writer, context: &context)
            }
            try writer.endElement()
            return Data(try writer.finish())
        } catch let error as StoreError {
            throw error
        } catch {
            let reason = (error as? XMLError)?.message ?? (error as? XMLFormatError)?.message ?? "\(error)"
            throw StoreError(
                code: .io, message: "Cannot write the XML store: \(reason)", context: context,
                cause: error)
        }
    }

    private static func writeDatabaseInfo(
        metadata: StoreMetadata, nextObjectID: Int64,
        into writer: inout XMLWriter
    ) throws {
        try writer.startElement("databaseInfo")
        try writer.writeElement("version", text: formatVersion)
        try writer.writeElement("UUID", text: metadata.storeUUID ?? "")
        try writer.writeElement("nextObjectID", text: String(nextObjectID))
        try writer.startElement("metadata")
        try writer.startElement("plist", attributes: [("version", "1.0")])
        try PropertyListXMLWriter.write(metadata.values, into: &writer)
        try writer.endElement()
        try writer.endElement()
        try writer.endElement()
    }

    private static func writeObject(
        _ record: StoreRecord, entity: XMLStoreSchema.Entity, schema: XMLStoreSchema,
        storeIdentifier: String, into writer: inout XMLWriter,
        context: inout ErrorContext
    ) throws {
        try writer.startElement(
            "object",
            attributes: [
                ("type", entity.fileName),
                ("id", "z\(record.objectID.referenceKey)"),
            ])
        for property in entity.properties {
            switch property.kind {
            case .attribute(let type):
                guard let value = record[property.name] else { continue }
                context.key = property.name
                let encoded =
                    property.composite.map { XMLValueCoding.encode(value, as: $0) }
                    ?? XMLValueCoding.encode(value, as: type)
                guard let (typeName, text) = encoded else {
                    throw XMLFormatError(
                        "The value of '\(property.name)' is not a \(type.rawValue) value that "
                            + "an XML store can hold.", line: 0)
                }
                try writer.writeElement(
                    "attribute", attributes: [("name", property.fileName), ("type", typeName)],
                    text: text)
            case .relationship(let relationship):
                context.key = property.name
                let destination =
                    schema.entity(named: relationship.destinationEntityName)?.fileName
                    ?? relationship.destinationEntityName.uppercased()
                var attributes: [(name: String, value: String)] = [
                    ("name", property.fileName), ("type", relationship.isToMany ? "0/0" : "1/1"),
                    ("destination", destination),
                ]
                let idrefs = try references(record[property.name], storeIdentifier: storeIdentifier)
                if !idrefs.isEmpty { attributes.append(("idrefs", idrefs)) }
                try writer.writeElement("relationship", attributes: attributes)
            }
        }
        context.key = nil
        try writer.endElement()
    }

    /// `z1 z2 …` for a to-one or to-many value.
    private static func references(_ value: (any Sendable)?, storeIdentifier: String) throws -> String {
        switch value {
        case nil:
            return ""
        case let id as ManagedObjectID:
            try check(id, storeIdentifier: storeIdentifier)
            return "z\(id.referenceKey)"
        case let ids as [ManagedObjectID]:
            var text = ""
            text.reserveCapacity(ids.count * 8)
            for id in ids {
                try check(id, storeIdentifier: storeIdentifier)
                if !text.isEmpty { text.append(" ") }
                text.append("z")
                text.append(String(id.referenceKey))
            }
            return text
        default:
            throw XMLFormatError("A relationship holds a \(type(of: value!)) instead of object IDs.", line: 0)
        }
    }

    private static func check(_ id: ManagedObjectID, storeIdentifier: String) throws {
        guard id.storeIdentifier == storeIdentifier else {
            throw XMLFormatError(
                "A relationship refers to \(id), an object of another store; XML stores hold "
                    + "relationships within one store only.", line: 0)
        }
    }
}
