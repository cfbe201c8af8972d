import CSQLite
import Foundation
import ObjectGraph

extension SQLiteStore {
    /// The metadata key of this store's files that keep binary data allowing external storage in Core Data's form
    /// (``ExternalBinaryData``). Files this store wrote before it did lack it and keep the plain bytes; Core Data's
    /// files, which lack this store's model cache, always have Core Data's form.
    static let externalDataFormatKey = "ObjectGraphExternalBinaryData"

    /// Sets whether the file's columns hold Core Data's form of external binary data, from its metadata.
    func readExternalDataFormat() {
        guard let connection else { return }
        let writtenHere = metadata.values[ModelCacheEncoder.metadataKey] != nil
        connection.externalData.usesMarkers = !writtenHere || metadata.values[Self.externalDataFormatKey] != nil
    }

    /// Whether objects of an entity have attributes whose binary data may be kept in files.
    func hasExternalData(_ entityName: String) -> Bool {
        schema.entities[entityName]?.attributes.contains { $0.kind == .externalData } ?? false
    }

    /// Whether a save's updated or deleted objects may have left files no row names: some have attributes whose
    /// data may be kept in files, and the folder of files exists. Records of one entity mostly come together, so
    /// an entity is looked up once per run of its records.
    func mayOrphanExternalData(_ changes: StoreChanges) -> Bool {
        var last = ""
        var found = false
        for record in changes.updated where record.objectID.entityName != last {
            last = record.objectID.entityName
            if hasExternalData(last) { found = true; break }
        }
        if !found {
            for record in changes.deleted where record.objectID.entityName != last {
                last = record.objectID.entityName
                if hasExternalData(last) { found = true; break }
            }
        }
        guard found, let folder = connection?.externalData.folder else { return false }
        return FileManager.default.fileExists(atPath: folder)
    }

    /// Deletes the external data files no row of the file names (``ExternalBinaryData/sweep(keeping:now:)``):
    /// every BLOB column of every table is read for names, not only the model's, so that a file named by a table
    /// this store's model or configuration leaves out is kept. Does nothing for a read-only store, and deletes
    /// nothing when the names cannot all be read.
    @discardableResult
    func sweepExternalData() -> Int {
        guard !isReadOnly, let connection, connection.externalData.usesMarkers,
            let folder = connection.externalData.folder, FileManager.default.fileExists(atPath: folder)
        else { return 0 }
        do {
            var referenced: Set<String> = []
            var columns: [(table: String, column: String)] = []
            let tables = try connection.makeStatement("SELECT name FROM sqlite_master WHERE type = 'table'")
            var names: [String] = []
            while try tables.step() == .row { if let name = tables.string(at: 0) { names.append(name) } }
            for table in names where !table.hasPrefix("sqlite_") {
                let info = try connection.makeStatement("PRAGMA table_info(\(quoted(table)))")
                while try info.step() == .row {
                    if let name = info.string(at: 1), info.string(at: 2)?.uppercased() == "BLOB" {
                        columns.append((table, name))
                    }
                }
            }
            for (table, column) in columns {
                let name = quoted(column)
                // typeof() and length() read no blob's content: only the short values are loaded.
                let statement = try connection.makeStatement(
                    "SELECT \(name) FROM \(quoted(table)) WHERE typeof(\(name)) = 'blob' AND length(\(name)) "
                        + "BETWEEN 2 AND 1024 AND substr(\(name), 1, 1) = X'02'")
                while try statement.step() == .row {
                    guard let bytes = sqlite3_column_blob(statement.handle, 0) else { continue }
                    let buffer = UnsafeRawBufferPointer(
                        start: bytes, count: Int(sqlite3_column_bytes(statement.handle, 0)))
                    if let file = ExternalBinaryData.fileName(in: buffer) { referenced.insert(file) }
                }
            }
            return connection.externalData.sweep(keeping: referenced)
        } catch {
            return 0
        }
    }
}
