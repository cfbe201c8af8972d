import Foundation
import ObjectGraph

extension SQLiteStore {
    /// Lightweight migration, when the file was written with other entity versions and the options ask for it
    /// (`.migratePersistentStoresAutomatically` and `.inferMappingModelAutomatically`):
    ///
    /// - new entities get their tables, indexes and `Z_PRIMARYKEY` rows;
    /// - new attributes and relationships get columns (`ALTER TABLE … ADD COLUMN`); a new mandatory attribute
    ///   is filled with its default value and refused without one;
    /// - an attribute whose `renamingIdentifier` names an existing column has that column renamed;
    /// - removed properties keep their columns, which are ignored.
    ///
    /// Everything runs in one transaction and the metadata then records the current model's hashes. Without the
    /// options the metadata keeps the file's hashes and the coordinator refuses the model.
    func migrateIfNeeded(knownNumbers: [String: Int64]) throws {
        guard !model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) else { return }
        guard options.flag(.migratePersistentStoresAutomatically), options.flag(.inferMappingModelAutomatically),
            !isReadOnly
        else { return }
        let connection = try openConnection()
        try StoreErrorFactory.converting(url: url, doing: "migrating the store") {
            try connection.inTransaction {
                try insertPrimaryKeyRows(known: Set(knownNumbers.keys))
                for table in schema.heldTables {
                    if !schema.hasTable(table.name) {
                        try connection.execute(schema.createStatement(for: table))
                    } else {
                        try addMissingColumns(table)
                    }
                    for statement in schema.indexStatements(for: table) { try connection.execute(statement) }
                }
                for join in schema.heldJoinTables where !schema.hasTable(join.name) {
                    try connection.execute(schema.createStatement(for: join))
                }
                try convertExternalStorageColumns()
                metadata.modelVersionHashes = modelVersionHashes()
                try writeMetadata()
            }
            try introspectColumns()
        }
    }

    /// Rewrites the values of binary attributes whose external storage (`allowsExternalBinaryDataStorage`) the
    /// model turned on or off since the model the file's own model cache records: plain bytes get Core Data's
    /// marker (large ones go to files), marked values become plain bytes again. Core Data's files, without this
    /// store's cache, and files that keep plain bytes throughout (``ExternalBinaryData/usesMarkers``) need none.
    private func convertExternalStorageColumns() throws {
        let connection = try openConnection()
        let externalData = connection.externalData
        guard externalData.usesMarkers, let url,
            let archive = metadata.values[ModelCacheEncoder.metadataKey] as? Data,
            let written = try? ModelCacheDecoder.entities(fromCompressed: archive, url: url)
        else { return }
        var before: [String: EntityDescription] = [:]
        for entity in written where before[entity.name] == nil { before[entity.name] = entity }
        var converted: Set<String> = []
        for (name, mapping) in schema.entities.sorted(by: { $0.key < $1.key }) {
            guard schema.hasTable(mapping.table.name) else { continue }
            for column in mapping.attributes where column.composite == nil {
                let attribute = column.attribute
                let old = before[name]?.properties.first { $0.name == attribute.name } as? AttributeDescription
                guard let old, old.attributeType == .binaryData, attribute.attributeType == .binaryData,
                    old.allowsExternalBinaryDataStorage != attribute.allowsExternalBinaryDataStorage,
                    mapping.table.has(column.name), converted.insert(mapping.table.name + "." + column.name).inserted
                else { continue }
                let (table, name) = (quoted(mapping.table.name), quoted(column.name))
                let read = try connection.makeStatement("SELECT Z_PK, \(name) FROM \(table) WHERE \(name) IS NOT NULL")
                var rows: [(key: Int64, value: Data?)] = []
                while try read.step() == .row {
                    let stored = read.data(at: 1) ?? Data()
                    let value =
                        attribute.allowsExternalBinaryDataStorage
                        ? try externalData.storedValue(of: stored)
                        : stored.withUnsafeBytes { externalData.value(stored: $0) }
                    rows.append((read.int64(at: 0), value))
                }
                let update = try connection.prepare("UPDATE \(table) SET \(name) = ? WHERE Z_PK = ?")
                for row in rows {
                    try update.bind([row.value.map { .blob($0) } ?? .null, .integer(row.key)])
                    try update.run()
                }
            }
        }
    }

    private func addMissingColumns(_ table: TableMapping) throws {
        let connection = try openConnection()
        let used = Set(table.columns.map { $0.name.uppercased() })
        for column in table.columns where !table.has(column.name) {
            let attribute = table.root.selfAndDescendants.lazy.compactMap {
                self.schema.mapping($0).attributes.first { $0.name == column.name }?.attribute
            }.first
            if let old = attribute?.renamingIdentifier.map({ "Z" + $0.uppercased() }), table.has(old),
                !used.contains(old)
            {
                try connection.execute("ALTER TABLE \(quoted(table.name)) RENAME COLUMN \(quoted(old)) TO "
                    + quoted(column.name))
                continue
            }
            try connection.execute("ALTER TABLE \(quoted(table.name)) ADD COLUMN \(quoted(column.name)) \(column.type)")
            guard let attribute, !attribute.isOptional else { continue }
            guard let value = attribute.defaultValue else {
                throw StoreError(code: .incompatibleModel,
                                 message: "Lightweight migration cannot add the mandatory attribute '\(attribute.name)' "
                                    + "without a default value; make it optional or give it a default.",
                                 context: ErrorContext(entityName: attribute.entity?.name, key: attribute.name,
                                                       storeURL: url))
            }
            let update = try connection.prepare("UPDATE \(quoted(table.name)) SET \(quoted(column.name)) = ?")
            try ValueCoding.bind(value, kind: ColumnKind(attribute), to: update, at: 1)
            try update.run()
        }
    }
}
