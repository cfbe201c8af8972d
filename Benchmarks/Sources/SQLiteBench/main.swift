import BenchmarkSupport
import CSQLiteRaw
import Foundation
import ObjectGraph
import ObjectGraphSQLite

// SQLiteBench: the SQLite store against the raw C API doing the same work, in the same run.
//
//   swift run -c release --package-path Benchmarks SQLiteBench [--quick] [--json PATH]
//
// Each workload runs once to warm up, then ours and the raw loop alternate until both are stable; the table gives
// the median and spread. --quick shrinks the inputs (20k inserts, 40k rows instead of 100k and 200k).

let arguments = Arguments()
let quick = arguments.quick

func exec(_ db: OpaquePointer?, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
}

func openRaw(_ path: String) -> OpaquePointer? {
    var db: OpaquePointer?
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    return db
}

func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
    var text = text
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    _ = text.withUTF8 { sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient) }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitebench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
SQLiteStore.register()

/// A new database file name in the folder.
var fileNumber = 0
@MainActor
func freshURL(_ name: String) -> URL {
    fileNumber += 1
    return folder.appendingPathComponent("\(name)-\(fileNumber).sqlite")
}

let runs = Figure.Runs.standard(quick: quick)
let longRuns = Figure.Runs.long(quick: quick)
var rows: [ResultRow] = []
var sink = 0

// MARK: 1. Insert objects of 8 attributes, one transaction

let insertCount = quick ? 20_000 : 100_000

/// The raw loop: prepared INSERT, bound values, one transaction, into the same table our store creates.
@MainActor
func rawInsertSeconds() -> Double {
    let url = freshURL("raw-insert")
    defer { SQLiteWorkloadData.removeDatabase(url) }
    let db = openRaw(url.path)
    defer { sqlite3_close_v2(db) }
    exec(db, "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZI1 INTEGER, ZI2 INTEGER, "
        + "ZD1 FLOAT, ZD2 FLOAT, ZS1 VARCHAR, ZS2 VARCHAR, ZDATE TIMESTAMP, ZFLAG INTEGER)")
    return Figure.seconds {
        exec(db, "BEGIN IMMEDIATE")
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
        for n in 0..<insertCount {
            sqlite3_bind_int64(statement, 1, Int64(n + 1))
            sqlite3_bind_int64(statement, 2, Int64(n))
            sqlite3_bind_int64(statement, 3, Int64(n % 1000))
            sqlite3_bind_double(statement, 4, Double(n) * 0.5)
            sqlite3_bind_double(statement, 5, Double(n) / 3)
            bindText(statement, 6, "name \(n)")
            bindText(statement, 7, "city \(n % 97)")
            sqlite3_bind_double(statement, 8, Double(n))
            sqlite3_bind_int64(statement, 9, n % 2 == 0 ? 1 : 0)
            sqlite3_step(statement)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        exec(db, "COMMIT")
    }
}

/// The raw loop writing 32 rows per INSERT statement, as the store does (see `RowWriter.rowsPerInsert`): the
/// anchor for how much the store itself costs over the SQL it runs. The anchor stays the one-row loop.
@MainActor
func rawMultiRowInsertSeconds() -> Double {
    let url = freshURL("raw-multi-insert")
    defer { SQLiteWorkloadData.removeDatabase(url) }
    let db = openRaw(url.path)
    defer { sqlite3_close_v2(db) }
    exec(db, "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZI1 INTEGER, ZI2 INTEGER, "
        + "ZD1 FLOAT, ZD2 FLOAT, ZS1 VARCHAR, ZS2 VARCHAR, ZDATE TIMESTAMP, ZFLAG INTEGER)")
    let rowsPerStatement = 32
    let values = Array(repeating: "(?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)", count: rowsPerStatement).joined(separator: ", ")
    return Figure.seconds {
        exec(db, "BEGIN IMMEDIATE")
        var statement: OpaquePointer?
        var single: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO ZITEM VALUES " + values, -1, &statement, nil)
        sqlite3_prepare_v2(db, "INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &single, nil)
        var n = 0
        while n < insertCount {
            let rows = insertCount - n >= rowsPerStatement ? rowsPerStatement : 1
            let target = rows == 1 ? single : statement
            for row in 0..<rows {
                let (m, first) = (n + row, Int32(row * 9))
                sqlite3_bind_int64(target, first + 1, Int64(m + 1))
                sqlite3_bind_int64(target, first + 2, Int64(m))
                sqlite3_bind_int64(target, first + 3, Int64(m % 1000))
                sqlite3_bind_double(target, first + 4, Double(m) * 0.5)
                sqlite3_bind_double(target, first + 5, Double(m) / 3)
                bindText(target, first + 6, "name \(m)")
                bindText(target, first + 7, "city \(m % 97)")
                sqlite3_bind_double(target, first + 8, Double(m))
                sqlite3_bind_int64(target, first + 9, m % 2 == 0 ? 1 : 0)
            }
            sqlite3_step(target)
            sqlite3_reset(target)
            n += rows
        }
        sqlite3_finalize(statement)
        sqlite3_finalize(single)
        exec(db, "COMMIT")
    }
}

/// Runs `body` with a coordinator holding one new SQLite store of the workload model, removed afterwards.
@MainActor
func withFreshStore<T>(_ name: String, _ body: (PersistentStoreCoordinator, PersistentStore) throws -> T) throws -> T {
    let url = freshURL(name)
    defer { SQLiteWorkloadData.removeDatabase(url) }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteWorkloadData.model())
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
    defer { try? coordinator.remove(store) }
    return try body(coordinator, store)
}

/// The store's `prepareSave`+`commit` of records built beforehand. Building them (the caller's dictionaries) is
/// timed apart: every call appends its build and save times, so both can be reported.
var insertTimes: [(build: Double, save: Double)] = []
@MainActor
func storeInsertSeconds() throws -> Double {
    try withFreshStore("store-insert") { _, store in
        var changes = StoreChanges()
        let build = try Figure.seconds {
            let keys = try store.newReferenceKeys(forEntityName: "Item", count: insertCount)
            changes.inserted = keys.enumerated().map { index, key in
                StoreRecord(objectID: store.objectID(forEntityName: "Item", referenceKey: key),
                            values: SQLiteWorkloadData.itemValues(index))
            }
        }
        let save = try Figure.seconds { try store.prepareSave(changes).commit() }
        insertTimes.append((build, save))
        return save
    }
}

@MainActor
func contextInsertSeconds() throws -> Double {
    try withFreshStore("context-insert") { coordinator, _ in
        let context = ManagedObjectContext(coordinator: coordinator)
        context.isUndoRegistrationEnabled = false
        return try Figure.seconds {
            for n in 0..<insertCount {
                let object = context.insertNewObject(forEntityName: "Item")
                SQLiteWorkloadData.setItemValues(n, on: object)
            }
            try context.save()
        }
    }
}

/// Times a batch insert of `insertCount` Items through a context (Core Data's NSBatchInsertRequest), into a fresh
/// store. `request` makes the request around `next`, which gives the number of the next object, or nil after the
/// last: its handler sets that object's values in the timed loop, as a caller filling the request from parsed input
/// would.
@MainActor
func batchInsertSeconds(_ name: String, _ request: (_ next: @escaping () -> Int?) -> BatchInsertRequest) throws
    -> Double
{
    try withFreshStore(name) { coordinator, _ in
        let context = ManagedObjectContext(coordinator: coordinator)
        return try Figure.seconds {
            var n = 0
            let result = try context.execute(request {
                guard n < insertCount else { return nil }
                defer { n += 1 }
                return n
            })
            precondition(result.count == insertCount)
        }
    }
}

/// The values set in the dictionary the handler is handed.
@MainActor
func batchInsertSeconds() throws -> Double {
    try batchInsertSeconds("batch-insert") { next in
        BatchInsertRequest(entityName: "Item") { values in
            guard let n = next() else { return true }
            SQLiteWorkloadData.fillItemValues(n, into: &values)
            return false
        }
    }
}

/// The values set on the managed object the handler is handed.
@MainActor
func objectBatchInsertSeconds() throws -> Double {
    try batchInsertSeconds("object-batch-insert") { next in
        BatchInsertRequest(entityName: "Item", managedObjectHandler: { object in
            guard let n = next() else { return true }
            SQLiteWorkloadData.setItemValues(n, on: object)
            return false
        })
    }
}

let insertRate = "objects/s"
let insertNote = "\(insertCount / 1000)k objects of 8 attributes, one transaction, WAL"
let (storeInsert, rawInsert) = try Figure.samplingPair(runs, unit: "s", ours: storeInsertSeconds,
                                                       anchor: rawInsertSeconds)
let storeInsertWithBuilding = Figure(samples: insertTimes.dropFirst().map { $0.build + $0.save }, unit: "s")
let (storeInsertBesideMultiRow, rawMultiRowInsert) = try Figure.samplingPair(runs, unit: "s", ours: storeInsertSeconds,
                                                                             anchor: rawMultiRowInsertSeconds)
// Paired with a raw insert of its own, so that its ratio compares runs made in the same minutes.
let (contextInsert, rawInsertBesideContext) = try Figure.samplingPair(longRuns, unit: "s", ours: contextInsertSeconds,
                                                                      anchor: rawInsertSeconds)
let (batchInsert, rawInsertBesideBatch) = try Figure.samplingPair(runs, unit: "s", ours: batchInsertSeconds,
                                                                  anchor: rawInsertSeconds)
let (objectBatchInsert, rawInsertBesideObjectBatch) = try Figure.samplingPair(runs, unit: "s",
                                                                              ours: objectBatchInsertSeconds,
                                                                              anchor: rawInsertSeconds)
rows.append(ResultRow(workload: "SQLite insert: store prepareSave+commit vs raw C API",
                      ours: storeInsert.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawInsert.rate(items: Double(insertCount), unit: insertRate), target: .ratioAtLeast(0.5),
                      note: insertNote + "; the records are built before the timed save"))
rows.append(ResultRow(workload: "SQLite insert: store prepareSave+commit vs raw C API writing 32 rows per INSERT",
                      ours: storeInsertBesideMultiRow.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawMultiRowInsert.rate(items: Double(insertCount), unit: insertRate), target: .none,
                      note: insertNote + "; the store's own SQL done raw: what the store costs over it; its own anchor"))
rows.append(ResultRow(workload: "SQLite insert, building the StoreRecords too: store vs raw C API",
                      ours: storeInsertWithBuilding.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawInsert.rate(items: Double(insertCount), unit: insertRate), target: .ratioAtLeast(0.5),
                      note: insertNote))
rows.append(ResultRow(workload: "SQLite batch insert (BatchInsertRequest through a context) vs raw C API",
                      ours: batchInsert.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawInsertBesideBatch.rate(items: Double(insertCount), unit: insertRate),
                      target: .ratioAtLeast(0.5),
                      note: insertNote + "; the values are set in the handler's dictionary in the timed loop; its own anchor"))
rows.append(ResultRow(workload: "SQLite batch insert, managed object handler, vs raw C API",
                      ours: objectBatchInsert.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawInsertBesideObjectBatch.rate(items: Double(insertCount), unit: insertRate),
                      target: .none,
                      note: insertNote
                        + "; setValue(_:forKey:) on the handler's object in the timed loop; its own anchor"))
rows.append(ResultRow(workload: "SQLite insert+save through a context vs raw C API",
                      ours: contextInsert.rate(items: Double(insertCount), unit: insertRate),
                      anchor: rawInsertBesideContext.rate(items: Double(insertCount), unit: insertRate),
                      target: .none, note: insertNote + "; its own anchor, measured run by run beside it"))

// MARK: 2. Fetch every object, 10 attributes

let fetchCount = quick ? 40_000 : 200_000
let fetchURL = folder.appendingPathComponent("fetch.sqlite")
let fetchCoordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteWorkloadData.model())
let fetchStore = try fetchCoordinator.addPersistentStore(type: .sqlite, at: fetchURL)
do {
    let keys = try fetchStore.newReferenceKeys(forEntityName: "Row", count: fetchCount)
    var changes = StoreChanges()
    changes.inserted = keys.enumerated().map { index, key in
        StoreRecord(objectID: fetchStore.objectID(forEntityName: "Row", referenceKey: key),
                    values: SQLiteWorkloadData.rowValues(index, count: fetchCount))
    }
    try fetchStore.prepareSave(changes).commit()
}
let rowEntity = fetchCoordinator.managedObjectModel.entitiesByName["Row"]!

/// One row read into Swift values, as the raw loops read it.
struct RawRow {
    var pk, opt, rank, a, b: Int64
    var x, y: Double
    var s, t, u: String
    var when: Date
    var flag: Bool

    init(_ statement: OpaquePointer?) {
        func text(_ index: Int32) -> String {
            String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, index),
                                                 count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
        }
        pk = sqlite3_column_int64(statement, 0)
        opt = sqlite3_column_int64(statement, 2)
        rank = sqlite3_column_int64(statement, 3)
        a = sqlite3_column_int64(statement, 4)
        b = sqlite3_column_int64(statement, 5)
        x = sqlite3_column_double(statement, 6)
        y = sqlite3_column_double(statement, 7)
        s = text(8)
        t = text(9)
        u = text(10)
        when = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 11))
        flag = sqlite3_column_int64(statement, 12) != 0
    }
}

func rawFetchAll() -> Int {
    var db: OpaquePointer?
    sqlite3_open_v2(fetchURL.path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZRANK, ZA, ZB, ZX, ZY, ZS, ZT, ZU, ZWHEN, ZFLAG FROM ZROW "
        + "ORDER BY Z_PK", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    var rows: [RawRow] = []
    rows.reserveCapacity(fetchCount)
    while sqlite3_step(statement) == SQLITE_ROW { rows.append(RawRow(statement)) }
    return rows.count
}

let fetchRate = "objects/s"
let fetchNote = "\(fetchCount / 1000)k objects of 10 attributes"
let (storeFetch, rawFetch) = try Figure.timingPair(runs, ours: {
    sink &+= try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"], predicate: nil,
                                                    sortKeys: [], limit: 0)).count
}, anchor: { sink &+= rawFetchAll() })
let storeFetchIDs = try Figure.timing(runs) {
    sink &+= try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"], predicate: nil,
                                                    sortKeys: [], limit: 0, includesValues: false)).count
}
// Paired with a raw fetch of its own, run by run: the anchor measured beside the store fetch moves too much on a
// shared machine in the minutes between.
let (contextFetch, rawFetchBesideContext) = try Figure.timingPair(longRuns, ours: {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    sink &+= try context.fetch(FetchRequest(entityName: "Row")).count
}, anchor: { sink &+= rawFetchAll() })
// Batched: IDs first, then one query per 1,000 objects as every object's values are read.
let batchedContextFetch = try Figure.timing(longRuns) {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    let request = FetchRequest(entityName: "Row")
    request.fetchBatchSize = 1000
    let objects = try context.fetch(request)
    for object in objects { sink &+= (object.value(forKey: "a") as? Int) ?? 0 }
    withExtendedLifetime(context) {}
}
/// Every attribute of every object, read as the raw loop reads its columns into a `RawRow`.
func readEveryValue(of objects: [ManagedObject]) -> Int {
    var total = 0
    for object in objects {
        total &+= (object.value(forKey: "rank") as? Int) ?? 0
        total &+= (object.value(forKey: "a") as? Int) ?? 0
        total &+= (object.value(forKey: "b") as? Int) ?? 0
        total &+= Int((object.value(forKey: "x") as? Double) ?? 0)
        total &+= Int((object.value(forKey: "y") as? Double) ?? 0)
        total &+= (object.value(forKey: "s") as? String)?.utf8.count ?? 0
        total &+= (object.value(forKey: "t") as? String)?.utf8.count ?? 0
        total &+= (object.value(forKey: "u") as? String)?.utf8.count ?? 0
        total &+= Int((object.value(forKey: "when") as? Date)?.timeIntervalSinceReferenceDate ?? 0)
        total &+= (object.value(forKey: "flag") as? Bool) == true ? 1 : 0
    }
    return total
}
// Issue 26: apps read what they fetch. Every object's 10 values, against the raw loop reading the same columns.
let (contextFetchRead, rawFetchBesideRead) = try Figure.timingPair(longRuns, ours: {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    let objects = try context.fetch(FetchRequest(entityName: "Row"))
    sink &+= readEveryValue(of: objects)
    withExtendedLifetime(context) {}
}, anchor: { sink &+= rawFetchAll() })
let batchedContextFetchRead = try Figure.timing(longRuns) {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    let request = FetchRequest(entityName: "Row")
    request.fetchBatchSize = 1000
    sink &+= readEveryValue(of: try context.fetch(request))
    withExtendedLifetime(context) {}
}
let rawFetchRate = rawFetch.rate(items: Double(fetchCount), unit: fetchRate)
rows.append(ResultRow(workload: "SQLite fetch all: store fetch with values vs raw C API",
                      ours: storeFetch.rate(items: Double(fetchCount), unit: fetchRate), anchor: rawFetchRate,
                      target: .ratioAtLeast(0.5), note: fetchNote + " into StoreRecords; the raw loop reads structs"))
rows.append(ResultRow(workload: "SQLite fetch all: store fetch of IDs only vs raw C API (all values)",
                      ours: storeFetchIDs.rate(items: Double(fetchCount), unit: fetchRate), anchor: rawFetchRate,
                      target: .none, note: fetchNote))
rows.append(ResultRow(workload: "SQLite fetch all through a context vs raw C API",
                      ours: contextFetch.rate(items: Double(fetchCount), unit: fetchRate),
                      anchor: rawFetchBesideContext.rate(items: Double(fetchCount), unit: fetchRate),
                      target: .none, note: fetchNote + "; its own anchor, measured run by run beside it"))
rows.append(ResultRow(workload: "SQLite fetch all through a context, batches of 1000, every object read, vs raw C API",
                      ours: batchedContextFetch.rate(items: Double(fetchCount), unit: fetchRate), anchor: rawFetchRate,
                      target: .none, note: fetchNote + "; one value of each object read"))
rows.append(ResultRow(workload: "SQLite fetch all through a context, every object's values read, vs raw C API",
                      ours: contextFetchRead.rate(items: Double(fetchCount), unit: fetchRate),
                      anchor: rawFetchBesideRead.rate(items: Double(fetchCount), unit: fetchRate),
                      target: .ratioAtLeast(0.4),
                      note: fetchNote + ", all 10 read with value(forKey:); the raw loop reads the same columns "
                        + "into structs; its own anchor, measured run by run beside it"))
rows.append(ResultRow(workload: "SQLite fetch all through a context, batches of 1000, every object's values read, "
                        + "vs raw C API",
                      ours: batchedContextFetchRead.rate(items: Double(fetchCount), unit: fetchRate),
                      anchor: rawFetchRate, target: .ratioAtLeast(0.4),
                      note: fetchNote + ", all 10 read with value(forKey:)"))

// MARK: 3. Indexed, sorted, limit-50 fetch

let threshold = fetchCount / 2
func rawLimitQuery(_ db: OpaquePointer?) -> Int {
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZRANK, ZA, ZB, ZX, ZY, ZS, ZT, ZU, ZWHEN, ZFLAG FROM ZROW "
        + "WHERE ZRANK >= ? ORDER BY ZRANK, Z_PK LIMIT 50", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    sqlite3_bind_int64(statement, 1, Int64(threshold))
    var rows: [RawRow] = []
    while sqlite3_step(statement) == SQLITE_ROW { rows.append(RawRow(statement)) }
    return rows.count
}
var rawDB: OpaquePointer?
sqlite3_open_v2(fetchURL.path, &rawDB, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
let iterations = quick ? 200 : 500
let limitPredicate = try ObjectPredicate(format: "rank >= %d", threshold)
let (storeLimitBatch, rawLimitBatch) = try Figure.timingPair(runs, ours: {
    for _ in 0..<iterations {
        sink &+= try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"],
                                                        predicate: limitPredicate, sortKeys: [SortKey("rank")],
                                                        limit: 50)).count
    }
}, anchor: { for _ in 0..<iterations { sink &+= rawLimitQuery(rawDB) } })
sqlite3_close_v2(rawDB)
let storeLimit = storeLimitBatch.scaled(by: 1 / Double(iterations))
let rawLimit = rawLimitBatch.scaled(by: 1 / Double(iterations))
rows.append(ResultRow(workload: "SQLite indexed sorted limit-50 query: store vs raw C API", ours: storeLimit,
                      anchor: rawLimit, target: .ratioAtMost(2),
                      note: "time per query (\(iterations) per run), rank >= half of \(fetchCount / 1000)k rows"))

// MARK: 4. Grouped count

/// The raw loop: the same GROUP BY, read into (label, count) pairs.
func rawGroupedCount(_ db: OpaquePointer?) -> Int {
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT ZT, COUNT(*) FROM ZROW GROUP BY ZT", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    var groups: [(String, Int)] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        let label = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, 0),
                                                         count: Int(sqlite3_column_bytes(statement, 0))), as: UTF8.self)
        groups.append((label, Int(sqlite3_column_int64(statement, 1))))
    }
    return groups.count
}
sqlite3_open_v2(fetchURL.path, &rawDB, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
let groupedRequest = FetchRequest(entityName: "Row")
groupedRequest.resultType = .dictionary
groupedRequest.propertiesToFetch = ["t", ExpressionDescription(name: "count", expression: .keyPath("@count"))]
groupedRequest.propertiesToGroupBy = ["t"]
let (groupedCount, rawGrouped) = try Figure.timingPair(runs, ours: {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    sink &+= try context.fetchDictionaries(groupedRequest).count
}, anchor: { sink &+= rawGroupedCount(rawDB) })
sqlite3_close_v2(rawDB)
rows.append(ResultRow(workload: "SQLite grouped count (dictionary fetch) vs raw C API GROUP BY", ours: groupedCount,
                      anchor: rawGrouped, target: .ratioAtMost(1.5),
                      note: "COUNT(*) per label, 31 groups of \(fetchCount / 1000)k rows; time per query"))

// MARK: 5. Durable saves: one object per save, synchronous = FULL against NORMAL

// Since issue #24 the daemon's personal store (and every writable SQLite store it writes) runs WAL with
// synchronous = FULL, so that a write is on disk before its reply: every commit syncs the WAL. This row is the
// price, per save of one object through a context, against the same saves with NORMAL (the setting before).
let durableCount = quick ? 50 : 200

@MainActor
func oneObjectSavesSeconds(full: Bool) throws -> Double {
    let url = freshURL(full ? "durable-full" : "durable-normal")
    defer { SQLiteWorkloadData.removeDatabase(url) }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteWorkloadData.model())
    var options: PersistentStoreOptions = [:]
    if full { options[.sqliteSynchronousFull] = true }
    _ = try coordinator.addPersistentStore(type: .sqlite, configurationName: nil, at: url, options: options)
    let context = ManagedObjectContext(coordinator: coordinator)
    let started = Date()
    for index in 0..<durableCount {
        let object = context.insertNewObject(forEntityName: "Row")
        object.setValue("favourite \(index)", forKey: "t")
        object.setValue(Int64(index), forKey: "a")
        try context.save()
    }
    return Date().timeIntervalSince(started)
}
let (durableSaves, normalSaves) = try Figure.samplingPair(runs, unit: "s", ours: { try oneObjectSavesSeconds(full: true) },
                                                          anchor: { try oneObjectSavesSeconds(full: false) })
rows.append(ResultRow(workload: "SQLite one object per save (WAL): synchronous FULL vs NORMAL",
                      ours: durableSaves.rate(items: Double(durableCount), unit: "saves/s"),
                      anchor: normalSaves.rate(items: Double(durableCount), unit: "saves/s"), target: .none,
                      note: "\(durableCount) saves through a context; FULL is the personal store's setting since "
                        + "#24 (a write is on disk before its reply), NORMAL the one before"))

// MARK: 6. Persistent history: fetch 10k transactions

// Issue 27: reading what changed must cost about what reading the rows costs. 10k saves of one object each, with
// history tracking, then the whole history fetched through the coordinator against the raw C API reading the same
// rows (the same join of the history tables, each column read into a Swift value).
let historyCount = quick ? 2_000 : 10_000
let historyURL = folder.appendingPathComponent("history.sqlite")
let historyCoordinator = PersistentStoreCoordinator(managedObjectModel: SQLiteWorkloadData.model())
let historyStore = try historyCoordinator.addPersistentStore(type: .sqlite, at: historyURL,
                                                             options: [.persistentHistoryTracking: true])
do {
    let keys = try historyStore.newReferenceKeys(forEntityName: "Row", count: historyCount)
    for (index, key) in keys.enumerated() {
        var changes = StoreChanges()
        changes.inserted = [StoreRecord(objectID: historyStore.objectID(forEntityName: "Row", referenceKey: key),
                                        values: SQLiteWorkloadData.rowValues(index, count: historyCount))]
        changes.history = PersistentHistoryRecording(author: "bench", contextName: "history")
        try historyStore.prepareSave(changes).commit()
    }
}

@MainActor
func historyFetchSeconds() throws -> Double {
    let started = Date()
    let transactions = try historyCoordinator.fetchHistory(.fetchHistory(after: nil as PersistentHistoryToken?))
    let elapsed = Date().timeIntervalSince(started)
    precondition(transactions.count == historyCount)
    sink &+= transactions.count
    return elapsed
}

@MainActor
func rawHistorySeconds() -> Double {
    let db = openRaw(historyURL.path)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, c.Z_PK, c.ZCHANGETYPE, "
        + "c.ZENTITYNAME, c.ZENTITYPK, c.ZCOLUMNS, c.ZTOMBSTONE FROM ZOGHISTORYTRANSACTION t LEFT JOIN "
        + "ZOGHISTORYCHANGE c ON c.ZTRANSACTIONID = t.Z_PK ORDER BY t.Z_PK, c.Z_PK", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, index))),
                      as: UTF8.self)
    }
    struct RawChange { var transaction, change, type, key: Int64; var time: Double; var author, context, entity: String? }
    let started = Date()
    var read: [RawChange] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        read.append(RawChange(transaction: sqlite3_column_int64(statement, 0), change: sqlite3_column_int64(statement, 4),
                              type: sqlite3_column_int64(statement, 5), key: sqlite3_column_int64(statement, 7),
                              time: sqlite3_column_double(statement, 1), author: text(2), context: text(3),
                              entity: text(6)))
    }
    let elapsed = Date().timeIntervalSince(started)
    precondition(read.count == historyCount)
    sink &+= read.count
    return elapsed
}
let (historyFetch, rawHistory) = try Figure.samplingPair(runs, unit: "s", ours: historyFetchSeconds,
                                                         anchor: rawHistorySeconds)
rows.append(ResultRow(workload: "SQLite history fetch of \(historyCount) transactions vs raw C API reading the rows",
                      ours: historyFetch.rate(items: Double(historyCount), unit: "transactions/s"),
                      anchor: rawHistory.rate(items: Double(historyCount), unit: "transactions/s"),
                      target: .ratioAtLeast(0.5),
                      note: "one insert per transaction; coordinator.fetchHistory(after: nil) against the same join "
                        + "read with sqlite3_step into Swift values"))

// MARK: 7. Migration with an inferred mapping, and prefetching (issue 29)

let (migrationRow, migrationSummary) = try GraphWorkloads.migrationRow(runs: runs, quick: quick, in: folder)
rows.append(migrationRow)
let (prefetchRow, prefetchSummary) = try GraphWorkloads.prefetchRow(runs: runs, in: folder)
rows.append(prefetchRow)

// MARK: Output

func line(_ name: String, _ time: Double, _ count: Int) -> String {
    String(format: "%-50@ %9.1f ms  %10.0f objects/s", name as NSString, time * 1000, Double(count) / time)
}
print("medians of \(runs.minimum) to \(runs.maximum) runs (context: \(longRuns.minimum) to \(longRuns.maximum))")
print(line("raw insert (8 attributes, one tx)", rawInsert.median, insertCount))
print(line("store prepareSave+commit (records built)", storeInsert.median, insertCount))
print(line("  + building the StoreRecords", storeInsertWithBuilding.median, insertCount))
print(line("batch insert (BatchInsertRequest)", batchInsert.median, insertCount))
print(String(format: "  batch/raw insert rate: %.2fx", rawInsertBesideBatch.median / batchInsert.median))
print(line("batch insert, managed object handler", objectBatchInsert.median, insertCount))
print(String(format: "  object batch/raw insert rate: %.2fx",
             rawInsertBesideObjectBatch.median / objectBatchInsert.median))
print(line("context insert+save", contextInsert.median, insertCount))
print(String(format: "  store/raw insert rate: %.2fx (%.2fx with record building; %.2fx against 32-row raw INSERTs)"
                + "   context/raw: %.2fx",
             rawInsert.median / storeInsert.median, rawInsert.median / storeInsertWithBuilding.median,
             rawMultiRowInsert.median / storeInsertBesideMultiRow.median,
             rawInsertBesideContext.median / contextInsert.median))
print(line("raw step-and-read (10 attributes)", rawFetch.median, fetchCount))
print(line("store fetch with values", storeFetch.median, fetchCount))
print(line("store fetch IDs only", storeFetchIDs.median, fetchCount))
print(line("context fetch", contextFetch.median, fetchCount))
print(line("context fetch, fetchBatchSize 1000, all read", batchedContextFetch.median, fetchCount))
print(String(format: "  store/raw fetch rate: %.2fx   context/raw: %.2fx", rawFetch.median / storeFetch.median,
             rawFetchBesideContext.median / contextFetch.median))
print(String(format: "raw indexed sorted limit-50: %.1f µs; store: %.1f µs; store/raw latency %.2fx",
             rawLimit.median * 1e6, storeLimit.median * 1e6, storeLimit.median / rawLimit.median))
print(String(format: "raw grouped count: %.2f ms; dictionary fetch: %.2f ms; ours/raw %.2fx",
             rawGrouped.median * 1e3, groupedCount.median * 1e3, groupedCount.median / rawGrouped.median))
print(migrationSummary)
print(prefetchSummary)
print("")
ResultTable.print(rows)
if let url = arguments.jsonURL {
    try ResultFile(tool: "SQLiteBench", quick: quick, rows: rows).write(to: url)
}
if sink == 42 { print("") }
