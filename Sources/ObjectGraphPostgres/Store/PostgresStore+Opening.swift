import Foundation
import ObjectGraph
import PostgresNIO

extension PostgresStore {
    /// Selects (creating when needed) the schema, creates the tables of a new store, reads the entity numbers and
    /// the metadata, migrates when asked, and records which tables and columns exist.
    func openStore() throws {
        try converting("opening the store") {
            try session.inTransaction {
                try lockSchemaCreation()
                if !isReadOnly { try session.query("CREATE SCHEMA IF NOT EXISTS \(quoted(location.schema))") }
                let tables = try existingTables()
                if !tables.contains("Z_METADATA") {
                    guard !isReadOnly else {
                        throw StoreError(
                            code: .io,
                            message: "The PostgreSQL schema \(location.schema) holds no store, "
                                + "and a read-only store cannot create one.",
                            context: ErrorContext(storeURL: url))
                    }
                    try createStore()
                } else {
                    try readStore()
                }
            }
            try introspect()
        }
    }

    /// Holds the schema's creation lock until the open transaction ends, so that concurrent first openings of one
    /// schema (two daemons starting at once) create the schema and its tables once: `IF NOT EXISTS` alone races
    /// (a unique violation in the catalog).
    func lockSchemaCreation() throws {
        try session.query("SELECT pg_advisory_xact_lock(hashtext(?))", [.text("ObjectGraph:" + location.schema)])
    }

    /// The tables of the schema, upper-cased.
    private func existingTables() throws -> Set<String> {
        let rows = try session.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", [.text(location.schema)])
        return Set(try rows.map { try $0[column: 0].decode(String.self).uppercased() })
    }

    /// A new store: tables, entity rows and fresh metadata, in the opening transaction.
    private func createStore() throws {
        schema = SQLSchema(model: model, configurationName: configurationName, numbers: [:])
        metadata = freshMetadata()
        for statement in PostgresSchema.creationStatements(schema) { try session.query(statement) }
        try insertPrimaryKeyRows(known: [])
        try writeMetadata()
    }

    /// An existing store: its entity numbers and metadata; lightweight migration when the model changed.
    private func readStore() throws {
        var numbers: [String: Int64] = [:]
        for row in try session.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            numbers[try row[column: 1].decode(String.self)] = try row[column: 0].decode(Int64.self)
        }
        schema = SQLSchema(model: model, configurationName: configurationName, numbers: numbers)
        guard let row = try session.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").first else {
            throw StoreError(
                code: .corruptFile, message: "The PostgreSQL schema \(location.schema) has no metadata row.",
                context: ErrorContext(storeURL: url))
        }
        metadata = try Self.metadata(
            uuid: try row[column: 0].decode(String?.self), plist: try row[column: 1].decode(Data?.self),
            url: url)
        try migrateIfNeeded(knownNumbers: numbers)
    }

    /// Lightweight migration, when the schema was written with other entity versions and the options ask for it:
    /// new entities get their tables, indexes and `Z_PRIMARYKEY` rows, new properties their columns (removed ones
    /// keep theirs, ignored). The metadata then records the current model's hashes. Without the options the
    /// metadata keeps the stored hashes and the coordinator refuses the model.
    private func migrateIfNeeded(knownNumbers: [String: Int64]) throws {
        guard !model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) else { return }
        guard options.flag(.migratePersistentStoresAutomatically), options.flag(.inferMappingModelAutomatically),
            !isReadOnly
        else { return }
        for statement in PostgresSchema.creationStatements(schema) + PostgresSchema.columnAdditions(schema) {
            try session.query(statement)
        }
        try insertPrimaryKeyRows(known: Set(knownNumbers.keys))
        metadata.modelVersionHashes = modelVersionHashes()
        try writeMetadata()
    }

    /// Adds the `Z_PRIMARYKEY` rows of entities the schema does not list yet.
    private func insertPrimaryKeyRows(known: Set<String>) throws {
        for row in schema.primaryKeyRows where !known.contains(row.name) {
            try session.query(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING",
                [.integer(row.number), .text(row.name), .integer(row.superNumber)])
        }
    }

    /// Records which tables and columns the schema really has (queries never name a missing one).
    private func introspect() throws {
        let tables = try existingTables()
        schema.existingTables = tables
        var columns: [String: Set<String>] = [:]
        let rows = try session.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?",
            [.text(location.schema)])
        for row in rows {
            columns[try row[column: 0].decode(String.self).uppercased(), default: []]
                .insert(try row[column: 1].decode(String.self).uppercased())
        }
        for table in schema.tables.values {
            table.existingColumns = columns[table.name.uppercased()] ?? []
        }
    }

    /// The metadata of `Z_METADATA`: the property list, with the UUID from `Z_UUID`.
    static func metadata(uuid: String?, plist: Data?, url: URL?) throws -> StoreMetadata {
        var metadata = StoreMetadata()
        if let plist, !plist.isEmpty {
            guard let decoded = try? PropertyListSerialization.propertyList(from: plist, options: [], format: nil),
                let dictionary = PropertyListCoding.sendable(decoded) as? [String: any Sendable]
            else {
                throw StoreError(
                    code: .corruptFile, message: "The store's Z_METADATA property list cannot be read.",
                    context: ErrorContext(storeURL: url))
            }
            metadata = StoreMetadata(dictionary)
        }
        if let uuid, !uuid.isEmpty { metadata.storeUUID = uuid }
        if metadata.storeType == nil { metadata.storeType = PersistentStoreType.postgres.rawValue }
        return metadata
    }

    /// Writes the metadata row (the UUID and a binary property list), keeping the change token.
    func writeMetadata() throws {
        var values: [String: Any] = [:]
        for (key, value) in metadata.values { values[key] = value }
        let plist: Data
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        } catch {
            throw StoreError(
                code: .unsupportedRequest,
                message: "The store metadata holds a value that is not a "
                    + "property-list value.", context: ErrorContext(storeURL: url), cause: error)
        }
        try session.query(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?) ON CONFLICT (Z_VERSION) DO UPDATE "
                + "SET Z_UUID = EXCLUDED.Z_UUID, Z_PLIST = EXCLUDED.Z_PLIST", [.text(identifier), .blob(plist)])
    }
}
