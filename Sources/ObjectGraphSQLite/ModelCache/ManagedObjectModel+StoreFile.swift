import CZlib
import Foundation
import ObjectGraph

extension ManagedObjectModel {
    /// Reads the model of a Core Data SQLite store from the store itself, to open a file whose model you lack.
    ///
    /// Core Data caches the compiled model in `Z_MODELCACHE.Z_CONTENT` (raw deflate of an `NSKeyedArchiver`
    /// archive): its entities, inheritance, attributes with their types, relationships with inverses, delete
    /// rules and to-many flags, fetch indexes, uniqueness constraints, configurations and version identifiers are
    /// read from there. The SQLite stores ObjectGraph writes keep an archive of the same
    /// shape in their metadata (`ObjectGraphModelCache`), derived attributes' derivations included; it is read
    /// first, as long as the metadata's entity version hashes are still its model's. Without a cache the model is
    /// inferred from the tables (`Z_PRIMARYKEY`, the `Z`-prefixed columns and their declared types, foreign-key
    /// columns and many-to-many join tables), and every entity inferred so carries
    /// `userInfo["ObjectGraphInferred"] = "YES"`.
    ///
    /// Open the store with this model read-only and with `.ignoresModelVersion` (the version hashes of a store
    /// Core Data wrote are Apple's, which ObjectGraph does not compute).
    /// - Throws: `StoreError/Code/foreignFile` for a file that is not a Core Data SQLite store,
    ///   `StoreError/Code/corruptFile` for a damaged cache, `StoreError/Code/io` when it cannot be read.
    public convenience init(contentsOfStoreAt url: URL) throws {
        let inspection = try StoreFileModelReader.inspect(url)
        let decoded: ModelCacheDecoder.Model
        if let ownCache = Self.ownCache(of: inspection, url: url) {
            decoded = try ModelCacheDecoder.model(fromCompressed: ownCache, url: url)
        } else if let cache = inspection.cache {
            decoded = try ModelCacheDecoder.model(fromCompressed: cache, url: url)
        } else {
            decoded = ModelCacheDecoder.Model(entities: StoreSchemaInference.entities(from: inspection))
        }
        self.init(entities: decoded.entities)
        for (name, members) in decoded.configurations {
            setEntities(members.compactMap { entitiesByName[$0] }, forConfigurationName: name)
        }
        versionIdentifiers = decoded.versionIdentifiers
        do {
            try resolveRelationships()
        } catch {
            throw StoreError(
                code: .corruptFile,
                message: "The model found in \(url.path) is inconsistent: \(error)",
                context: ErrorContext(storeURL: url), cause: error)
        }
    }

    /// The model ObjectGraph keeps in the metadata of the SQLite stores it writes, when it is the model the store's
    /// tables were last written with: every entity version hash in the metadata is the decoded model's. A store
    /// that Core Data migrated since has Core Data's hashes there, and its own model cache.
    private static func ownCache(of inspection: StoreFileInspection, url: URL) -> Data? {
        guard let metadata = inspection.metadata, let archive = metadata[ModelCacheEncoder.metadataKey] as? Data,
            let hashes = metadata.modelVersionHashes, !hashes.isEmpty,
            let entities = try? ModelCacheDecoder.entities(fromCompressed: archive, url: url)
        else { return nil }
        let model = ManagedObjectModel(entities: entities)
        guard (try? model.resolveRelationships()) != nil,
            hashes.allSatisfy({ model.entitiesByName[$0.key]?.matchesVersionHash($0.value) ?? false })
        else { return nil }
        return archive
    }
}

/// What a read-only look at a store file finds for its model.
struct StoreFileInspection {
    struct Table {
        var name: String
        var columns: [(name: String, type: String)]
    }

    var cache: Data?
    /// The store's metadata (`Z_METADATA`), when it reads.
    var metadata: StoreMetadata?
    /// `Z_PRIMARYKEY`: entity number, name and parent number.
    var entities: [(number: Int64, name: String, parent: Int64)] = []
    var tables: [Table] = []
    /// The columns with an index of their own (`TABLE_COLUMN_INDEX`, as Core Data names the index of every to-one
    /// relationship's column), as `TABLE.COLUMN`, upper-cased.
    var indexedColumns: Set<String> = []
}

enum StoreFileModelReader {
    static func inspect(_ url: URL) throws -> StoreFileInspection {
        guard SQLiteConnection.isSQLiteFile(atPath: url.path) else {
            throw StoreErrorFactory.foreignFile(url, "it does not start with the SQLite header")
        }
        do throws(SQLiteError) {
            var configuration = SQLiteConnection.Configuration()
            configuration.mode = .readOnly
            let connection = try SQLiteConnection(path: url.path, configuration: configuration)
            defer { connection.close() }
            var inspection = StoreFileInspection()
            var names: [String] = []
            let tables = try connection.makeStatement(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            while try tables.step() == .row {
                if let name = tables.string(at: 0) { names.append(name) }
            }
            let upper = Set(names.map { $0.uppercased() })
            guard upper.contains("Z_PRIMARYKEY"), upper.contains("Z_METADATA") else {
                throw SQLiteError(resultCode: 1, message: "no Core Data tables")
            }
            if upper.contains("Z_MODELCACHE") {
                let cache = try connection.makeStatement("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
                if try cache.step() == .row { inspection.cache = cache.data(at: 0) }
            }
            let metadata = try connection.makeStatement("SELECT Z_UUID, Z_PLIST FROM Z_METADATA LIMIT 1")
            if try metadata.step() == .row {
                // A metadata list that does not read only costs the store its own model cache here; opening the
                // store reports it.
                inspection.metadata = try? SQLiteStore.metadata(
                    uuid: metadata.string(at: 0),
                    plist: metadata.data(at: 1), url: url)
            }
            let entities = try connection.makeStatement(
                "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            while try entities.step() == .row {
                if let name = entities.string(at: 1) {
                    inspection.entities.append((entities.int64(at: 0), name, entities.int64(at: 2)))
                }
            }
            for name in names
            where name.hasPrefix("Z") && !name.hasPrefix("Z_")
                || name.range(
                    of: "^Z_[0-9]+[A-Z]", options: .regularExpression) != nil
            {
                var table = StoreFileInspection.Table(name: name, columns: [])
                let info = try connection.makeStatement("PRAGMA table_info(\"\(name)\")")
                while try info.step() == .row {
                    table.columns.append((info.string(at: 1) ?? "", (info.string(at: 2) ?? "").uppercased()))
                }
                inspection.tables.append(table)
            }
            let indexes = try connection.makeStatement(
                "SELECT i.tbl_name, c.name FROM sqlite_master AS i, pragma_index_info(i.name) AS c "
                    + "WHERE i.type = 'index' AND (SELECT count(*) FROM pragma_index_info(i.name)) = 1")
            while try indexes.step() == .row {
                if let table = indexes.string(at: 0), let column = indexes.string(at: 1) {
                    inspection.indexedColumns.insert("\(table).\(column)".uppercased())
                }
            }
            return inspection
        } catch {
            if error.message == "no Core Data tables" {
                throw StoreErrorFactory.foreignFile(url, "it has no Z_METADATA and Z_PRIMARYKEY tables")
            }
            if error.isNotADatabaseOrCorrupt { throw StoreErrorFactory.corruptFile(url, error.message) }
            throw StoreErrorFactory.storeError(error, url: url, doing: "reading the store's model")
        }
    }
}

/// Inflates raw deflate data (no zlib header), as Core Data stores its model cache.
enum RawInflate {
    static func inflate(_ data: Data, limit: Int = 64 << 20) -> Data? {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            var result = Z_OK
            while result == Z_OK {
                result = buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(target.baseAddress!, count: target.count - Int(stream.avail_out))
                    return code
                }
                if output.count > limit { return Z_DATA_ERROR }
                if result == Z_BUF_ERROR, stream.avail_in == 0 { return Z_DATA_ERROR }
            }
            return result
        }
        return status == Z_STREAM_END ? output : nil
    }
}
