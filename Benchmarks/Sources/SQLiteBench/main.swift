import CSQLiteRaw
import Foundation
import ObjectGraph
import ObjectGraphSQLite

// SQLiteBench: the SQLite store against the raw C API doing the same work, in the same run.
// Build and run with: swift run -c release SQLiteBench


func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

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

// MARK: Model

func makeModel() -> ManagedObjectModel {
    let item = EntityDescription(name: "Item", properties: [
        AttributeDescription(name: "i1", type: .integer64), AttributeDescription(name: "i2", type: .integer32),
        AttributeDescription(name: "d1", type: .double), AttributeDescription(name: "d2", type: .double),
        AttributeDescription(name: "s1", type: .string), AttributeDescription(name: "s2", type: .string),
        AttributeDescription(name: "date", type: .date), AttributeDescription(name: "flag", type: .boolean),
    ])
    let indexed = AttributeDescription(name: "rank", type: .integer64)
    indexed.isIndexed = true
    let row = EntityDescription(name: "Row", properties: [
        indexed, AttributeDescription(name: "a", type: .integer64), AttributeDescription(name: "b", type: .integer32),
        AttributeDescription(name: "x", type: .double), AttributeDescription(name: "y", type: .double),
        AttributeDescription(name: "s", type: .string), AttributeDescription(name: "t", type: .string),
        AttributeDescription(name: "u", type: .string), AttributeDescription(name: "when", type: .date),
        AttributeDescription(name: "flag", type: .boolean),
    ])
    return ManagedObjectModel(entities: [item, row])
}

func itemValues(_ n: Int) -> [String: any Sendable] {
    ["i1": n, "i2": n % 1000, "d1": Double(n) * 0.5, "d2": Double(n) / 3, "s1": "name \(n)", "s2": "city \(n % 97)",
     "date": Date(timeIntervalSinceReferenceDate: Double(n)), "flag": n % 2 == 0]
}

// MARK: 1. Insert 100k objects of 8 attributes

let insertCount = 100_000
let rawInsert: Double = {
    let db = openRaw(folder.appendingPathComponent("raw-insert.sqlite").path)
    defer { sqlite3_close_v2(db) }
    exec(db, "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZI1 INTEGER, ZI2 INTEGER, "
        + "ZD1 FLOAT, ZD2 FLOAT, ZS1 VARCHAR, ZS2 VARCHAR, ZDATE TIMESTAMP, ZFLAG INTEGER)")
    return measure {
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
}()

var recordBuilding = 0.0
let storeInsert: Double = try {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
    let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("store-insert.sqlite"))
    var changes = StoreChanges()
    // Building the records (the caller's dictionaries) is timed apart from the store's work.
    recordBuilding = try measure {
        let keys = try store.newReferenceKeys(forEntityName: "Item", count: insertCount)
        changes.inserted = keys.enumerated().map { index, key in
            StoreRecord(objectID: store.objectID(forEntityName: "Item", referenceKey: key), values: itemValues(index))
        }
    }
    return try measure {
        let save = try store.prepareSave(changes)
        try save.commit()
    }
}()

let contextInsert: Double = try {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
    try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("context-insert.sqlite"))
    let context = ManagedObjectContext(coordinator: coordinator)
    context.isUndoRegistrationEnabled = false
    return try measure {
        for n in 0..<insertCount {
            let object = context.insertNewObject(forEntityName: "Item")
            for (key, value) in itemValues(n) { object.setValue(value, forKey: key) }
        }
        try context.save()
    }
}()

// MARK: 2. Fetch 200k objects with 10 attributes

let fetchCount = 200_000
let fetchURL = folder.appendingPathComponent("fetch.sqlite")
let fetchCoordinator = PersistentStoreCoordinator(managedObjectModel: makeModel())
let fetchStore = try fetchCoordinator.addPersistentStore(type: .sqlite, at: fetchURL)
do {
    let keys = try fetchStore.newReferenceKeys(forEntityName: "Row", count: fetchCount)
    var changes = StoreChanges()
    changes.inserted = keys.enumerated().map { index, key in
        StoreRecord(objectID: fetchStore.objectID(forEntityName: "Row", referenceKey: key), values: [
            "rank": (index * 7919) % fetchCount, "a": index, "b": index % 5000, "x": Double(index) * 1.25,
            "y": -Double(index), "s": "string \(index)", "t": "label \(index % 31)", "u": "u\(index)",
            "when": Date(timeIntervalSinceReferenceDate: Double(index) * 60), "flag": index % 3 == 0,
        ])
    }
    try fetchStore.prepareSave(changes).commit()
}
let rowEntity = fetchCoordinator.managedObjectModel.entitiesByName["Row"]!

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

func best(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(try measure(body)) }
    return times.min()!
}

var sink = 0
let rawFetch = best(3) { sink &+= rawFetchAll() }
let storeFetch = try best(3) {
    let results = try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"], predicate: nil,
                                                         sortKeys: [], limit: 0))
    sink &+= results.count
}
let storeFetchIDs = try best(3) {
    let results = try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"], predicate: nil,
                                                         sortKeys: [], limit: 0, includesValues: false))
    sink &+= results.count
}
let contextFetch = try best(3) {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    let objects = try context.fetch(FetchRequest(entityName: "Row"))
    sink &+= objects.count
}

// Batched: IDs first, then one query per 1,000 objects as every object's values are read.
let batchedContextFetch = try best(3) {
    let context = ManagedObjectContext(coordinator: fetchCoordinator)
    let request = FetchRequest(entityName: "Row")
    request.fetchBatchSize = 1000
    let objects = try context.fetch(request)
    for object in objects { sink &+= (object.value(forKey: "a") as? Int) ?? 0 }
    withExtendedLifetime(context) {}
}

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
let iterations = 500
let rawLimit = best(3) { for _ in 0..<iterations { sink &+= rawLimitQuery(rawDB) } } / Double(iterations)
sqlite3_close_v2(rawDB)
let limitPredicate = try ObjectPredicate(format: "rank >= %d", threshold)
let storeLimit = try best(3) {
    for _ in 0..<iterations {
        sink &+= try fetchStore.fetch(StoreFetchRequest(entity: rowEntity, entityNames: ["Row"], predicate: limitPredicate,
                                                        sortKeys: [SortKey("rank")], limit: 50)).count
    }
} / Double(iterations)

func line(_ name: String, _ time: Double, _ count: Int) -> String {
    String(format: "%-46@ %9.1f ms  %10.0f objects/s", name as NSString, time * 1000, Double(count) / time)
}
print(line("raw insert 100k (8 attributes, one tx)", rawInsert, insertCount))
print(line("store prepareSave+commit 100k (records built)", storeInsert, insertCount))
print(line("  + building the 100k StoreRecords", storeInsert + recordBuilding, insertCount))
print(line("context insert+save 100k", contextInsert, insertCount))
print(String(format: "  store/raw insert rate: %.2fx (%.2fx with record building)   context/raw: %.2fx",
             rawInsert / storeInsert, rawInsert / (storeInsert + recordBuilding), rawInsert / contextInsert))
print(line("raw step-and-read 200k (10 attributes)", rawFetch, fetchCount))
print(line("store fetch 200k with values", storeFetch, fetchCount))
print(line("store fetch 200k IDs only", storeFetchIDs, fetchCount))
print(line("context fetch 200k", contextFetch, fetchCount))
print(line("context fetch 200k, fetchBatchSize 1000, all read", batchedContextFetch, fetchCount))
print(String(format: "  store/raw fetch rate: %.2fx   context/raw: %.2fx", rawFetch / storeFetch, rawFetch / contextFetch))
print(String(format: "raw indexed sorted limit-50: %.1f µs; store: %.1f µs; store/raw latency %.2fx",
             rawLimit * 1e6, storeLimit * 1e6, storeLimit / rawLimit))
if sink == 42 { print("") }
