import Foundation

extension PersistentStoreType {
    /// The binary store: the whole graph in one compact, checksummed file (see the format in `BinaryStoreFormat`).
    public static let binary = PersistentStoreType(rawValue: "Binary")
    /// Core Data's XML store format; registered by `ObjectGraphXML`.
    public static let xml = PersistentStoreType(rawValue: "XML")
    /// The SQLite store; registered by `ObjectGraphSQLite`.
    public static let sqlite = PersistentStoreType(rawValue: "SQLite")
}

/// The fast whole-graph store: an atomic store in a documented, versioned, checksummed binary format.
///
/// A missing file is a new, empty store; the file is written on the first save. Truncated, damaged or foreign files
/// are refused with ``StoreError/Code/corruptFile`` or ``StoreError/Code/foreignFile``: among them values that do not
/// fit the model (an attribute value of another type, a relationship to an object of another entity). Files with
/// objects of entities the store's configuration lacks are refused with ``StoreError/Code/incompatibleModel``, and so
/// are values of properties the model lacks, unless `.ignoresModelVersion` is set (they are skipped then).
public final class BinaryStore: AtomicStore, @unchecked Sendable {  // see PersistentStore
    public override class var storeType: PersistentStoreType { .binary }

    private var fileBytes: Data?
    private var header: BinaryStoreFormat.Header?

    /// Whether data starts with the binary store's magic bytes.
    public override class func canOpen(prefix: Data) -> Bool {
        prefix.starts(with: BinaryStoreFormat.magic)
    }

    public override func loadMetadata() throws {
        if let url, !isReadOnly { AtomicFileWriter.removeStaleTemporaryFiles(for: url) }
        guard let url, FileManager.default.fileExists(atPath: url.path) else {
            metadata = freshMetadata()
            return
        }
        let data: Data
        do {
            // Read, not mapped: a read error (EIO) or the file shrinking under the mapping would raise SIGBUS in
            // the middle of decoding, where a read fails with an error the caller handles.
            data = try Data(fileContentsOf: url)
        } catch {
            throw StoreError(code: .io, message: "Could not read \(url.path).", context: ErrorContext(storeURL: url),
                             cause: error)
        }
        let header = try data.withUnsafeBytes { try BinaryStoreFormat.readHeader($0, url: url) }
        guard header.metadata.storeUUID != nil else {
            throw StoreError(code: .corruptFile, message: "The binary store's metadata has no store UUID.",
                             context: ErrorContext(storeURL: url))
        }
        metadata = header.metadata
        self.header = header
        fileBytes = data
    }

    public override func load() throws {
        guard let data = fileBytes, let header else { return }
        defer {
            fileBytes = nil
            self.header = nil
        }
        let identifier = identifier
        let entities = model.entities(forConfigurationName: configurationName) ?? model.entities
        let ignoresUnknown = options.flag(.ignoresModelVersion)
        let (records, nextKey) = try data.withUnsafeBytes {
            try BinaryStoreFormat.readRecords($0, header: header, storeIdentifier: identifier,
                                              modelEntities: entities, ignoresUnknownProperties: ignoresUnknown, url: url)
        }
        addCacheNodes(records)
        nextReferenceKey = max(nextReferenceKey, nextKey)
    }

    public override func prepareWrite(records: [StoreRecord], metadata: StoreMetadata) throws -> any PreparedSave {
        guard let url else { return ImmediateSave() }
        let data = try BinaryStoreFormat.encode(records: records, metadata: metadata, nextKey: nextReferenceKey,
                                                model: model, url: url)
        return try AtomicFileWriter.prepare(data, at: url)
    }

    public override func saveMetadata() throws {
        guard url != nil else { return }
        let prepared = try prepareWrite(records: cacheNodes(), metadata: metadata)
        try prepared.commit()
    }
}
