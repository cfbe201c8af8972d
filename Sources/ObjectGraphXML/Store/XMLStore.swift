import Foundation
import ObjectGraph
import SafeXML

/// Core Data's XML store format as an atomic store: the whole graph in one XML file that Core Data on macOS can
/// open, and that opens files Core Data wrote.
///
/// Register the type once with ``register()``, then add stores with `.xml`:
///
/// ```swift
/// XMLStore.register()
/// try coordinator.addPersistentStore(type: .xml, at: url)
/// ```
///
/// A missing file is a new, empty store; the file is written on the first save, through a temporary file that
/// is renamed over the old one on commit. Loading streams the file with `SafeXML/XMLPullParser` (no network,
/// no entities, bounded depth and size). Refused files leave no store attached:
/// `StoreError/Code/corruptFile` for malformed, truncated or inconsistent files, `StoreError/Code/foreignFile`
/// for XML whose root is not `<database>`, `StoreError/Code/incompatibleModel` for objects of entities or
/// properties the model lacks (and, checked by the coordinator, different entity version hashes — stores written
/// by Core Data itself carry Apple's hashes, so open those with `.ignoresModelVersion`), `StoreError/Code/io`
/// when the file cannot be read.
public final class XMLStore: AtomicStore, @unchecked Sendable {  // see PersistentStore
    /// `ObjectGraph/PersistentStoreType/xml`.
    public override class var storeType: PersistentStoreType { .xml }

    /// The reader positioned after `<databaseInfo>`, between ``loadMetadata()`` and ``load()``.
    private var pendingReader: XMLStoreReader?
    /// The schema, built on first use (the model is frozen by then).
    private lazy var schema = XMLStoreSchema(model: model, configurationName: configurationName)

    /// Registers the XML store class for `ObjectGraph/PersistentStoreType/xml`. Calling it again does nothing new.
    public static func register() {
        PersistentStoreCoordinator.registerStoreClass(XMLStore.self, forStoreType: .xml)
    }

    /// Whether the first bytes of a file look like a Core Data XML store: an XML document (optionally after a
    /// byte-order mark, declaration, comments and DOCTYPE) whose root element is `database`.
    ///
    /// Sniffing only: a `true` answer does not mean the file is valid. Pass at least the first 1 KiB.
    public override class func canOpen(prefix: Data) -> Bool {
        XMLRootSniffer.rootElementName(in: prefix) == XMLStoreReader.rootElementName
    }

    /// Reads `<databaseInfo>`: the UUID, `nextObjectID` and the metadata property list (with the model version
    /// hashes the coordinator checks). A missing file gets fresh metadata; it is created by the first save.
    ///
    /// - Throws: `ObjectGraph/StoreError` with `ObjectGraph/StoreError/Code/corruptFile`,
    ///   `ObjectGraph/StoreError/Code/foreignFile` or `ObjectGraph/StoreError/Code/io`.
    public override func loadMetadata() throws {
        pendingReader = nil
        if let url, !isReadOnly { AtomicFileWriter.removeStaleTemporaryFiles(for: url) }
        guard let url, FileManager.default.fileExists(atPath: url.path) else {
            metadata = freshMetadata()
            return
        }
        var reader = try XMLStoreReader(url: url)
        let header = try reader.readHeader()
        var metadata = StoreMetadata(header.metadata)
        metadata.storeUUID = header.uuid
        metadata.storeType = type.rawValue
        self.metadata = metadata
        nextReferenceKey = max(nextReferenceKey, header.nextObjectID)
        pendingReader = consume reader
    }

    /// Reads every object after the header, resolving relationship references, and adds them to the cache.
    ///
    /// - Throws: `ObjectGraph/StoreError/Code/corruptFile` for malformed XML, values or references;
    ///   `ObjectGraph/StoreError/Code/incompatibleModel` for an entity (or, unless `.ignoresModelVersion` is
    ///   set, a property) the model lacks. Nothing is added then.
    public override func load() throws {
        guard var reader = pendingReader.take() else { return }
        let records = try reader.readObjects(
            schema: schema, storeIdentifier: identifier,
            ignoresUnknownProperties: options.flag(.ignoresModelVersion))
        addCacheNodes(records)
    }

    /// Encodes every record into a temporary file beside the store (written and synced now, renamed over the store
    /// on commit), so that a save touching several stores renames nothing until every file is written.
    ///
    /// - Throws: `ObjectGraph/StoreError/Code/io` when a value cannot be written as XML (for example a string
    ///   with a control character XML 1.0 cannot hold) or the file cannot be written; the store is unchanged.
    public override func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        guard let url else { return ImmediateSave() }
        var metadata = metadata
        metadata.storeType = type.rawValue
        if metadata[StoreMetadata.modelVersionIdentifiersKey] == nil {
            // Core Data writes the model's identifiers, or one empty string when it has none.
            let identifiers = model.versionIdentifiers.sorted()
            metadata[StoreMetadata.modelVersionIdentifiersKey] = identifiers.isEmpty ? [""] : identifiers
        }
        let data = try XMLStoreWriter.encode(
            records: records, metadata: metadata, nextObjectID: nextReferenceKey,
            schema: schema, storeIdentifier: identifier, url: url)
        return try AtomicFileWriter.prepare(data, at: url)
    }

    /// Writes the store again with its current metadata (every object included).
    public override func saveMetadata() throws {
        guard url != nil else { return }
        try prepareWrite(records: cacheNodes(), metadata: metadata).commit()
    }

    /// Releases the file if the store was removed between reading its header and loading it.
    public override func didRemove() {
        pendingReader = nil
    }
}
