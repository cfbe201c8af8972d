import Foundation
import ObjectGraph

/// What a read-only look at an existing file found.
struct SQLiteFileInspection {
    var tables: Set<String> = []
    var uuid: String?
    var plist: Data?
    var entityNumbers: [String: Int64] = [:]
}

extension SQLiteStore {
    /// The connection settings from the store's options.
    func configuration(mode: SQLiteConnection.OpenMode) -> SQLiteConnection.Configuration {
        var configuration = SQLiteConnection.Configuration()
        configuration.mode = mode
        configuration.statementCacheCapacity = 512
        configuration.synchronous = options.flag(.sqliteSynchronousFull) ? .full : .normal
        configuration.journalMode = options.flag(.sqliteUsesRollbackJournal) ? .delete : .wal
        if let seconds = options[.sqliteBusyTimeout] as? Double {
            configuration.busyTimeout = .milliseconds(Int64(seconds * 1000))
        } else if let seconds = options[.sqliteBusyTimeout] as? Int {
            configuration.busyTimeout = .seconds(seconds)
        }
        return configuration
    }

    /// Opens the file: checks an existing one without writing to it, then opens it for real; creates a new one.
    func openStore() throws {
        guard connection == nil else { return }
        guard let url else {
            try createStore(path: ":memory:")
            return
        }
        let path = url.path
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, (attributes[.size] as? NSNumber)?.intValue ?? 0 > 0 else {
            if isReadOnly {
                throw StoreError(code: .io, message: "There is no SQLite store at \(path) to open read-only.",
                                 context: ErrorContext(storeURL: url))
            }
            try createStore(path: path)
            return
        }
        guard SQLiteConnection.isSQLiteFile(atPath: path) else {
            throw StoreErrorFactory.foreignFile(url, "it does not start with the SQLite header")
        }
        let inspection = try inspect(path: path, checkPages: !isReadOnly)
        guard inspection.tables.contains("Z_METADATA"), inspection.tables.contains("Z_PRIMARYKEY") else {
            if inspection.tables.isEmpty, !isReadOnly {
                try createStore(path: path)
                return
            }
            throw StoreErrorFactory.foreignFile(url, "it has no Z_METADATA and Z_PRIMARYKEY tables")
        }
        metadata = try Self.metadata(uuid: inspection.uuid, plist: inspection.plist, url: url)
        let connection = try StoreErrorFactory.converting(url: url, doing: "opening the store") {
            try SQLiteConnection(path: path, configuration: configuration(mode: isReadOnly ? .readOnly : .readWrite))
        }
        self.connection = connection
        readExternalDataFormat()
        schema = SQLSchema(model: model, configurationName: configurationName, numbers: inspection.entityNumbers)
        try StoreErrorFactory.converting(url: url, doing: "reading the store's tables") {
            try introspectColumns()
        }
        try migrateIfNeeded(knownNumbers: inspection.entityNumbers)
        try StoreErrorFactory.converting(url: url, doing: "reading the store's tables") { try findEmptyTables() }
        // Files left unnamed by saves that never swept (a crash, another program's saves) go now.
        sweepExternalData()
    }

    /// Reads the tables, metadata and entity numbers through a read-only connection.
    private func inspect(path: String, checkPages: Bool) throws -> SQLiteFileInspection {
        do throws(SQLiteError) {
            var configuration = SQLiteConnection.Configuration()
            configuration.mode = .readOnly
            let probe = try SQLiteConnection(path: path, configuration: configuration)
            defer { probe.close() }
            var inspection = SQLiteFileInspection()
            let tables = try probe.makeStatement("SELECT name FROM sqlite_master WHERE type = 'table'")
            while try tables.step() == .row {
                if let name = tables.string(at: 0) { inspection.tables.insert(name.uppercased()) }
            }
            guard inspection.tables.contains("Z_METADATA"), inspection.tables.contains("Z_PRIMARYKEY") else {
                return inspection
            }
            if checkPages { try probe.quickCheck() }
            let row = try probe.makeStatement("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
            if try row.step() == .row {
                inspection.uuid = row.string(at: 0)
                inspection.plist = row.data(at: 1)
            }
            let numbers = try probe.makeStatement("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
            while try numbers.step() == .row {
                if let name = numbers.string(at: 1) { inspection.entityNumbers[name] = numbers.int64(at: 0) }
            }
            return inspection
        } catch {
            if error.isNotADatabaseOrCorrupt {
                throw StoreErrorFactory.corruptFile(url, error.message)
            }
            if error.message.contains("no such column") || error.message.contains("no such table") {
                throw StoreErrorFactory.foreignFile(url, "its Core Data tables have other columns")
            }
            throw StoreErrorFactory.storeError(error, url: url, doing: "opening the store")
        }
    }

    /// Creates a new store: tables, entity rows and fresh metadata, in one transaction.
    private func createStore(path: String) throws {
        let connection = try StoreErrorFactory.converting(url: url, doing: "creating the store") {
            try SQLiteConnection(path: path, configuration: configuration(mode: .create))
        }
        self.connection = connection
        schema = SQLSchema(model: model, configurationName: configurationName, numbers: [:])
        metadata = freshMetadata()
        try StoreErrorFactory.converting(url: url, doing: "creating the store") {
            try connection.inTransaction {
                for statement in schema.creationStatements { try connection.execute(statement) }
                try insertPrimaryKeyRows(known: [])
                try writeMetadata()
            }
            try introspectColumns()
        }
        tablesKnownEmpty = Set(schema.heldTables.map(\.name))
    }

    /// Adds the `Z_PRIMARYKEY` rows of entities the file does not list yet.
    func insertPrimaryKeyRows(known: Set<String>) throws {
        let insert = try openConnection().prepare(
            "INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
        for row in schema.primaryKeyRows where !known.contains(row.name) {
            try insert.bind([.integer(row.number), .text(row.name), .integer(row.superNumber)])
            try insert.run()
        }
    }

    /// Records which tables and columns the file really has.
    func introspectColumns() throws {
        let connection = try openConnection()
        var existing: Set<String> = []
        let tables = try connection.makeStatement("SELECT name FROM sqlite_master WHERE type = 'table'")
        while try tables.step() == .row {
            if let name = tables.string(at: 0) { existing.insert(name.uppercased()) }
        }
        schema.existingTables = existing
        for table in schema.tables.values {
            var columns: Set<String> = []
            if existing.contains(table.name.uppercased()) {
                let info = try connection.makeStatement("PRAGMA table_info(\(quoted(table.name)))")
                while try info.step() == .row {
                    if let name = info.string(at: 1) { columns.insert(name.uppercased()) }
                }
            }
            table.existingColumns = columns
        }
        schema.adoptFileColumnsForCompositeElements()
    }
}
