import BenchmarkSupport
import Foundation
import GRDB
import ObjectGraph
import ObjectGraphSQLite
import Synchronization

/// Our SQLite store beside GRDB doing the same work in the same run: GRDB is the peer (a mature Swift persistence
/// toolkit over the same SQLite), so the ratio says what our layers cost compared with a well-tuned one.
///
/// Both sides use WAL with `synchronous = NORMAL` (our store's default), one transaction per save, and files in a
/// fresh temporary folder. The workloads mirror SQLiteBench's: insert 100k rows of 8 columns, fetch 200k rows of
/// 10 columns, an indexed sorted limit-50 query. Each is measured twice, once through our context (the API an app
/// uses) against GRDB records, once through the store API against GRDB's statements and raw rows.
enum GRDBWorkloads {
    static var all: [Workload] {
        [insertContext, insertStore, fetchContext, fetchStore, limitContext, limitStore]
    }

    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("almanac-grdb-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func removeFolder() { try? FileManager.default.removeItem(at: folder) }

    /// A fresh file name in the folder, removing what a previous run left.
    static func freshURL(_ name: String) -> URL {
        let url = folder.appendingPathComponent(name + "-\(UUID().uuidString).sqlite")
        return url
    }

    static func removeDatabase(_ url: URL) { SQLiteWorkloadData.removeDatabase(url) }

    static func makeQueue(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    // MARK: The model, on both sides

    /// Our side's model: the one SQLiteBench uses; GRDB's records below mirror its two entities.
    static func model() -> ManagedObjectModel { SQLiteWorkloadData.model() }

    struct Item: FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var i1: Int64, i2: Int32, d1: Double, d2: Double, s1: String, s2: String, date: Date, flag: Bool

        init(_ n: Int) {
            i1 = Int64(n); i2 = Int32(n % 1000); d1 = Double(n) * 0.5; d2 = Double(n) / 3
            s1 = "name \(n)"; s2 = "city \(n % 97)"; date = Date(timeIntervalSinceReferenceDate: Double(n))
            flag = n % 2 == 0
        }

        init(row: GRDB.Row) throws {
            id = row["id"]; i1 = row["i1"]; i2 = row["i2"]; d1 = row["d1"]; d2 = row["d2"]; s1 = row["s1"]
            s2 = row["s2"]; date = row["date"]; flag = row["flag"]
        }

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id; container["i1"] = i1; container["i2"] = i2; container["d1"] = d1
            container["d2"] = d2; container["s1"] = s1; container["s2"] = s2; container["date"] = date
            container["flag"] = flag
        }

        static func createTable(_ db: Database) throws {
            try db.create(table: databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("i1", .integer); table.column("i2", .integer); table.column("d1", .double)
                table.column("d2", .double); table.column("s1", .text); table.column("s2", .text)
                table.column("date", .datetime); table.column("flag", .boolean)
            }
        }
    }

    /// The 10-column row of the fetch workloads.
    struct RowRecord: FetchableRecord, PersistableRecord {
        static let databaseTableName = "row"
        var id: Int64
        var rank: Int64, a: Int64, b: Int32, x: Double, y: Double, s: String, t: String, u: String, when: Date
        var flag: Bool

        init(_ index: Int, count: Int) {
            id = Int64(index + 1); rank = Int64(SQLiteWorkloadData.rank(index, count: count)); a = Int64(index); b = Int32(index % 5000)
            x = Double(index) * 1.25; y = -Double(index); s = "string \(index)"; t = "label \(index % 31)"
            u = "u\(index)"; when = Date(timeIntervalSinceReferenceDate: Double(index) * 60); flag = index % 3 == 0
        }

        init(row: GRDB.Row) throws {
            id = row["id"]; rank = row["rank"]; a = row["a"]; b = row["b"]; x = row["x"]; y = row["y"]
            s = row["s"]; t = row["t"]; u = row["u"]; when = row["when"]; flag = row["flag"]
        }

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id; container["rank"] = rank; container["a"] = a; container["b"] = b
            container["x"] = x; container["y"] = y; container["s"] = s; container["t"] = t; container["u"] = u
            container["when"] = when; container["flag"] = flag
        }
    }

    static func itemValues(_ n: Int) -> [String: any Sendable] { SQLiteWorkloadData.itemValues(n) }

    // MARK: 1. Insert 100k rows of 8 columns, one transaction

    static let insertContext = Workload(name: "SQLite insert+save, 8 columns: context vs GRDB records",
                                        target: .none) { quick in
        let count = quick ? 20_000 : 100_000
        SQLiteStore.register()
        let model = model()
        return Workload.Timed(ours: {
            let url = freshURL("ours-insert")
            defer { removeDatabase(url) }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            context.isUndoRegistrationEnabled = false
            for n in 0..<count {
                let object = context.insertNewObject(forEntityName: "Item")
                SQLiteWorkloadData.setItemValues(n, on: object)
            }
            try context.save()
        }, anchor: {
            let url = freshURL("grdb-insert")
            defer { removeDatabase(url) }
            let queue = try makeQueue(url)
            try queue.write { db in
                try Item.createTable(db)
                for n in 0..<count { try Item(n).insert(db) }
            }
        }, note: "\(count / 1000)k rows, one transaction")
    }

    static let insertStore = Workload(name: "SQLite insert, 8 columns: store save vs GRDB statement",
                                      target: .none) { quick in
        let count = quick ? 20_000 : 100_000
        SQLiteStore.register()
        let model = model()
        return Workload.Timed(ours: {
            let url = freshURL("ours-insert")
            defer { removeDatabase(url) }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            let keys = try store.newReferenceKeys(forEntityName: "Item", count: count)
            var changes = StoreChanges()
            changes.inserted = keys.enumerated().map { index, key in
                StoreRecord(objectID: store.objectID(forEntityName: "Item", referenceKey: key),
                            values: itemValues(index))
            }
            try store.prepareSave(changes).commit()
        }, anchor: {
            let url = freshURL("grdb-insert")
            defer { removeDatabase(url) }
            let queue = try makeQueue(url)
            try queue.write { db in
                try Item.createTable(db)
                let statement = try db.makeStatement(
                    sql: "INSERT INTO item (i1, i2, d1, d2, s1, s2, date, flag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                for n in 0..<count {
                    try statement.execute(arguments: [n, n % 1000, Double(n) * 0.5, Double(n) / 3, "name \(n)",
                                                      "city \(n % 97)", Date(timeIntervalSinceReferenceDate: Double(n)),
                                                      n % 2 == 0])
                }
            }
        }, note: "\(count / 1000)k rows, one transaction")
    }

    // MARK: 2. Fetch 200k rows of 10 columns

    /// The same 200k rows in a store of ours and in a GRDB database, built once per size (not timed) and read by the
    /// four fetch workloads.
    final class FetchFixture: @unchecked Sendable {  // built before the timed closures run, then only read
        let count: Int
        let coordinator: PersistentStoreCoordinator
        let store: PersistentStore
        let queue: DatabaseQueue

        init(count: Int) throws {
            self.count = count
            SQLiteStore.register()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: GRDBWorkloads.model())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: freshURL("ours-fetch"))
            self.coordinator = coordinator
            self.store = store
            let keys = try store.newReferenceKeys(forEntityName: "Row", count: count)
            var changes = StoreChanges()
            changes.inserted = keys.enumerated().map { index, key in
                StoreRecord(objectID: store.objectID(forEntityName: "Row", referenceKey: key),
                            values: SQLiteWorkloadData.rowValues(index, count: count))
            }
            try store.prepareSave(changes).commit()
            let queue = try makeQueue(freshURL("grdb-fetch"))
            self.queue = queue
            try queue.write { db in
                try db.create(table: RowRecord.databaseTableName) { table in
                    table.primaryKey("id", .integer)
                    table.column("rank", .integer).indexed()
                    table.column("a", .integer); table.column("b", .integer); table.column("x", .double)
                    table.column("y", .double); table.column("s", .text); table.column("t", .text)
                    table.column("u", .text); table.column("when", .datetime); table.column("flag", .boolean)
                }
                for index in 0..<count { try RowRecord(index, count: count).insert(db) }
            }
        }

        var entity: EntityDescription { coordinator.managedObjectModel.entitiesByName["Row"]! }

        private static let cache = Mutex<[Int: FetchFixture]>([:])

        /// One fixture per size for the four fetch workloads (building it takes longer than measuring them).
        static func shared(count: Int) throws -> FetchFixture {
            try cache.withLock { fixtures in
                if let fixture = fixtures[count] { return fixture }
                let fixture = try FetchFixture(count: count)
                fixtures[count] = fixture
                return fixture
            }
        }
    }

    static let fetchContext = Workload(name: "SQLite fetch all, 10 columns: context vs GRDB records",
                                       target: .none) { quick in
        let fixture = try FetchFixture.shared(count: quick ? 40_000 : 200_000)
        return Workload.Timed(ours: {
            let context = ManagedObjectContext(coordinator: fixture.coordinator)
            let objects = try context.fetch(FetchRequest(entityName: "Row"))
            precondition(objects.count == fixture.count)
        }, anchor: {
            let rows = try fixture.queue.read { db in try RowRecord.fetchAll(db) }
            precondition(rows.count == fixture.count)
        }, note: "\(fixture.count / 1000)k rows")
    }

    static let fetchStore = Workload(name: "SQLite fetch all, 10 columns: store fetch vs GRDB rows",
                                     target: .none) { quick in
        let fixture = try FetchFixture.shared(count: quick ? 40_000 : 200_000)
        let entity = fixture.entity
        return Workload.Timed(ours: {
            let records = try fixture.store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Row"],
                                                                    predicate: nil, sortKeys: [], limit: 0))
            precondition(records.count == fixture.count)
        }, anchor: {
            let rows = try fixture.queue.read { db in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM row") }
            precondition(rows.count == fixture.count)
        }, note: "\(fixture.count / 1000)k rows")
    }

    // MARK: 3. Indexed, sorted, limit-50

    static let limitContext = Workload(name: "SQLite indexed sorted limit-50: context vs GRDB records",
                                       target: .none) { quick in
        let fixture = try FetchFixture.shared(count: quick ? 40_000 : 200_000)
        let threshold = fixture.count / 2
        let predicate = try ObjectPredicate(format: "rank >= %d", threshold)
        let iterations = 200
        return Workload.Timed(ours: {
            let context = ManagedObjectContext(coordinator: fixture.coordinator)
            for _ in 0..<iterations {
                let request = FetchRequest(entityName: "Row")
                request.predicate = predicate
                request.sortKeys = [SortKey("rank")]
                request.fetchLimit = 50
                let objects = try context.fetch(request)
                precondition(objects.count == 50)
            }
        }, anchor: {
            try fixture.queue.read { db in
                for _ in 0..<iterations {
                    let rows = try RowRecord.filter(Column("rank") >= threshold).order(Column("rank")).limit(50)
                        .fetchAll(db)
                    precondition(rows.count == 50)
                }
            }
        }, note: "\(iterations) queries per run, \(fixture.count / 1000)k rows")
    }

    static let limitStore = Workload(name: "SQLite indexed sorted limit-50: store vs GRDB rows",
                                     target: .none) { quick in
        let fixture = try FetchFixture.shared(count: quick ? 40_000 : 200_000)
        let threshold = fixture.count / 2
        let predicate = try ObjectPredicate(format: "rank >= %d", threshold)
        let entity = fixture.entity
        let iterations = 200
        return Workload.Timed(ours: {
            for _ in 0..<iterations {
                let records = try fixture.store.fetch(StoreFetchRequest(entity: entity, entityNames: ["Row"],
                                                                        predicate: predicate,
                                                                        sortKeys: [SortKey("rank")], limit: 50))
                precondition(records.count == 50)
            }
        }, anchor: {
            try fixture.queue.read { db in
                for _ in 0..<iterations {
                    let rows = try GRDB.Row.fetchAll(db, sql: "SELECT * FROM row WHERE rank >= ? ORDER BY rank LIMIT 50",
                                                     arguments: [threshold])
                    precondition(rows.count == 50)
                }
            }
        }, note: "\(iterations) queries per run, \(fixture.count / 1000)k rows")
    }
}
