import Foundation
import ObjectGraph

extension SQLiteStore {
    /// The metadata from `Z_METADATA`: the property list (binary or XML), with the UUID from `Z_UUID`.
    static func metadata(uuid: String?, plist: Data?, url: URL?) throws -> StoreMetadata {
        var metadata = StoreMetadata()
        if let plist, !plist.isEmpty {
            guard let decoded = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil),
                let dictionary = PropertyListCoding.sendable(decoded) as? [String: any Sendable]
            else {
                throw StoreErrorFactory.corruptFile(url, "its Z_METADATA property list cannot be read")
            }
            metadata = StoreMetadata(dictionary)
        }
        if let uuid, !uuid.isEmpty { metadata.storeUUID = uuid }
        if metadata.storeType == nil { metadata.storeType = PersistentStoreType.sqlite.rawValue }
        return metadata
    }

    /// Writes the metadata to `Z_METADATA` as Core Data does: version 1, the UUID, a binary property list. The
    /// list also holds the store's model, archived as Core Data's model cache is (`ObjectGraphModelCache`), so
    /// that `ManagedObjectModel(contentsOfStoreAt:)` reads the model back as it was, names and types included.
    func writeMetadata() throws {
        var values: [String: Any] = [:]
        for (key, value) in metadata.values { values[key] = value }
        values["NSStoreModelVersionHashesVersion"] = 3
        values[ModelCacheEncoder.metadataKey] = ModelCacheEncoder.compressedArchive(of: model)
        // A file this store wrote before it kept external binary data in Core Data's form stays as it is.
        values[Self.externalDataFormatKey] = connection?.externalData.usesMarkers ?? true ? 1 : nil
        let plist: Data
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        } catch {
            throw StoreError(code: .unsupportedRequest, message: "The store metadata holds a value that is not a "
                                + "property-list value.", context: ErrorContext(storeURL: url), cause: error)
        }
        let statement = try openConnection().prepare(
            "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        try statement.bind([.text(identifier), .blob(plist)])
        try statement.run()
    }
}
