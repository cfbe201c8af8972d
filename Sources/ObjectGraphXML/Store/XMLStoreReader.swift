import Foundation
import ObjectGraph
import SafeXML

/// Reads a Core Data XML store file with the streaming pull parser: first the `<databaseInfo>` header, then
/// (separately, so a coordinator can check the model in between) every `<object>`.
///
/// Nothing but the current element is held as XML; objects become ``StoreRecord``s as they are read, and
/// relationship references (`idrefs="z3 z7"`) are resolved to object IDs once every object's entity is known.
struct XMLStoreReader: ~Copyable {
    /// What `<databaseInfo>` holds.
    struct Header {
        var uuid: String
        var nextObjectID: Int64
        var metadata: [String: any Sendable]
    }

    /// The root element of a Core Data XML store.
    static let rootElementName = "database"

    private var parser: XMLPullParser
    let url: URL

    /// The reader's bounds: the parser's defaults (512 MiB, depth 256), except that one value's text may be as
    /// long as the file, so that a large binary value that was saved can always be read back.
    static let limits = XMLLimits(maxTextLength: XMLLimits.default.maxBytes)

    /// Opens the file; nothing is read yet.
    init(url: URL, limits: XMLLimits = XMLStoreReader.limits) throws(StoreError) {
        self.url = url
        do {
            parser = try XMLPullParser(contentsOfFile: url.path, limits: limits)
        } catch {
            throw Self.storeError(error, url: url)
        }
    }

    // MARK: Header

    /// Reads up to the end of `<databaseInfo>`.
    ///
    /// - Throws: ``StoreError/Code/foreignFile`` when the root element is not `<database>` (and the file is
    ///   otherwise well-formed), ``StoreError/Code/corruptFile`` when it is malformed or lacks the header.
    mutating func readHeader() throws(StoreError) -> Header {
        do {
            guard let root = try parser.nextChildElement() else {
                throw XMLFormatError("The file has no root element.", line: 0)
            }
            guard root.name == Self.rootElementName else {
                try parser.skipElement()
                while try parser.next() != nil {}
                throw StoreError(
                    code: .foreignFile,
                    message: "\(url.lastPathComponent) is an XML file but not a Core Data XML store (its "
                        + "root element is <\(root.name)>, not <database>).",
                    context: ErrorContext(storeURL: url))
            }
            guard let info = try parser.nextChildElement(), info.name == "databaseInfo" else {
                throw XMLFormatError(
                    "The store lacks <databaseInfo> as the first child of <database>.",
                    line: root.line)
            }
            return try readDatabaseInfo(info)
        } catch {
            throw Self.storeError(error, url: url)
        }
    }

    private mutating func readDatabaseInfo(_ info: XMLElementStart) throws -> Header {
        var uuid: String?
        var nextObjectID: Int64 = 1
        var metadata: [String: any Sendable] = [:]
        while let child = try parser.nextChildElement() {
            switch child.name {
            case "UUID":
                let text = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
                uuid = text.isEmpty ? nil : text.uppercased()
            case "nextObjectID":
                guard let value = Int64(try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)),
                    value >= 0
                else {
                    throw XMLFormatError("<nextObjectID> is not a whole number.", line: child.line)
                }
                nextObjectID = value
            case "metadata":
                while let plist = try parser.nextChildElement() {
                    guard plist.name == "plist" else {
                        try parser.skipElement()
                        continue
                    }
                    guard
                        let values = try PropertyListXMLReader.readPlist(plist, from: &parser)
                            as? [String: any Sendable]
                    else {
                        throw XMLFormatError("The store's <metadata> is not a dictionary.", line: plist.line)
                    }
                    metadata = values
                }
            default:
                try parser.skipElement()  // <version> and anything newer
            }
        }
        guard let uuid else {
            throw XMLFormatError("<databaseInfo> has no <UUID>.", line: info.line)
        }
        if let hashes = metadata[StoreMetadata.modelVersionHashesKey] as? [String: any Sendable] {
            metadata[StoreMetadata.modelVersionHashesKey] = hashes.compactMapValues { $0 as? Data }
        }
        return Header(uuid: uuid, nextObjectID: nextObjectID, metadata: metadata)
    }

    // MARK: Objects

    /// Reads every `<object>` up to the end of the document and returns the records.
    ///
    /// - Parameters:
    ///   - schema: the entities the store may hold.
    ///   - storeIdentifier: the store's identifier, for object IDs.
    ///   - ignoresUnknownProperties: skip properties the model lacks instead of refusing the file.
    /// - Throws: ``StoreError/Code/corruptFile`` for malformed XML, values, IDs or references;
    ///   ``StoreError/Code/incompatibleModel`` for an entity or property the model lacks.
    mutating func readObjects(
        schema: XMLStoreSchema, storeIdentifier: String,
        ignoresUnknownProperties: Bool
    ) throws(StoreError) -> [StoreRecord] {
        var collector = XMLObjectCollector(schema: schema, url: url, ignoresUnknownProperties: ignoresUnknownProperties)
        do {
            while let start = try parser.nextChildElement() {
                guard start.name == "object" else {
                    try parser.skipElement()
                    continue
                }
                try readObject(start, into: &collector)
            }
            while try parser.next() != nil {}  // reports anything malformed after the root element
        } catch {
            throw Self.storeError(error, url: url)
        }
        return try collector.makeRecords(storeIdentifier: storeIdentifier)
    }

    private mutating func readObject(_ start: XMLElementStart, into collector: inout XMLObjectCollector) throws {
        var typeName: String?
        var id: String?
        for attribute in start.attributes {
            if attribute.name == "type" {
                typeName = attribute.value
            } else if attribute.name == "id" {
                id = attribute.value
            }
        }
        guard let typeName, let id else {
            throw XMLFormatError("An <object> lacks its type or id.", line: start.line)
        }
        try collector.beginObject(typeName: typeName, id: id, line: start.line)
        while let child = try parser.nextChildElement() {
            switch child.name {
            case "attribute":
                let name = child[attribute: "name"]
                let type = child[attribute: "type"]
                let text = try parser.readText()
                try collector.addAttribute(name: name, type: type, text: text, line: child.line)
            case "relationship":
                let name = child[attribute: "name"]
                let idrefs = child[attribute: "idrefs"]
                try parser.skipElement()
                try collector.addRelationship(name: name, idrefs: idrefs, line: child.line)
            default:
                try parser.skipElement()
            }
        }
        collector.endObject()
    }

    // MARK: Errors

    /// Converts a reading failure into the store's error.
    static func storeError(_ error: any Error, url: URL) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as XMLError where error.code == .io:
            return StoreError(
                code: .io, message: "Could not read \(url.path): \(error.message)",
                context: ErrorContext(storeURL: url), cause: error)
        case let error as XMLError:
            let place = error.line > 0 ? " (line \(error.line))" : ""
            return StoreError(
                code: .corruptFile,
                message: "\(url.lastPathComponent) is not a readable XML store\(place): \(error.message)",
                context: ErrorContext(storeURL: url), cause: error)
        case let error as XMLFormatError:
            let place = error.line > 0 ? " (line \(error.line))" : ""
            return StoreError(
                code: .corruptFile,
                message: "\(url.lastPathComponent) is damaged\(place): "
                    + error.message, context: ErrorContext(storeURL: url))
        default:
            return StoreError(
                code: .corruptFile, message: "\(url.lastPathComponent) could not be read.",
                context: ErrorContext(storeURL: url), cause: error)
        }
    }
}
