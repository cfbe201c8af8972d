import CSQLite
import Foundation
import ObjectGraph

/// Record readers by what they are made from, so that fetches of the same entities and properties with another
/// predicate, or the same predicate with other constants, do not lay out the rows again: a layout names every
/// column and builds the to-many subqueries, several times the work of compiling a small predicate (a template
/// fetch with new variables each time compiled both).
struct RecordReaderCache {
    struct Key: Hashable {
        let entityNumbers: [Int64]
        let alias: String
        /// The aliases taken before the reader: subqueries of to-many relationships take the next ones.
        let aliasesTaken: Int
        let properties: Set<String>?
        let defersLists: Bool
    }

    private var readers: [Key: (reader: RecordReader, aliasesTaken: Int)] = [:]
    /// The most readers kept; all are dropped when a new one would pass it.
    static let limit = 64

    /// How many readers are kept (for tests).
    var count: Int { readers.count }

    /// The reader of rows of `entities` read from `alias` (as `RecordReader.init` makes it), from the cache when one
    /// was made from the same inputs; `aliases` advances as making it would.
    mutating func reader(
        schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
        properties: Set<String>?, defersLists: Bool
    ) -> RecordReader {
        let key = Key(
            entityNumbers: entities.map(\.number), alias: alias, aliasesTaken: aliases.taken, properties: properties,
            defersLists: defersLists)
        if let cached = readers[key] {
            aliases.skip(cached.aliasesTaken)
            return cached.reader
        }
        let reader = RecordReader(
            schema: schema, entities: entities, alias: alias, aliases: aliases, properties: properties,
            defersLists: defersLists)
        if readers.count >= Self.limit { readers.removeAll(keepingCapacity: true) }
        readers[key] = (reader, aliases.taken - key.aliasesTaken)
        return reader
    }
}

/// Reads rows of a `SELECT` laid out by a ``SQLRecordLayout`` into ``StoreRecord``s, straight from SQLite's
/// columns.
struct RecordReader {
    let layout: SQLRecordLayout

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    var columns: [String] { layout.columns }

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given. With
    /// `defersLists`, to-many relationships are read after the rows by
    /// `fillLists(_:from:entityNumbers:connection:ids:)` (for reads of many rows; one row reads faster with its
    /// lists in the same statement).
    init(schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
         properties: Set<String>?, defersLists: Bool = false) {
        layout = SQLRecordLayout(schema: schema, entities: entities, alias: alias, aliases: aliases,
                                 properties: properties, dialect: SQLiteDialect(), defersLists: defersLists)
    }

    /// The record of the current row, whose key, entity number and entity name the caller read.
    func record(_ statement: SQLiteStatement, id: ManagedObjectID, entityNumber: Int64,
                schema: SQLSchema, ids: StoreIDs) -> StoreRecord {
        guard let plan = layout.plan(forEntityNumber: entityNumber) else {
            return StoreRecord(objectID: id, version: statement.int64(at: 2))
        }
        let handle = statement.handle
        let row = plan.row { read, index in
            Self.value(read, of: handle, statement: statement) {
                Self.relationship(plan.fields[index], statement: statement, ids: ids)
            }
        }
        return StoreRecord(objectID: id, version: statement.int64(at: 2), keys: plan.keys, row: row)
    }

    /// Reads the deferred to-many lists of `records` (whose entity numbers are `entityNumbers`, in step) with one
    /// query per relationship and batch of owners, and puts them in the records' rows; a record without
    /// destinations keeps no value, as a list read in the row would give.
    func fillLists(_ records: inout [StoreRecord], from start: Int = 0, entityNumbers: [Int64],
                   connection: SQLiteConnection, ids: StoreIDs) throws {
        let lists = layout.deferredLists
        guard !lists.isEmpty, start < records.count else { return }
        let limit = try SQLiteStore.parameterLimit(of: connection)
        for list in lists {
            // The owners' keys with their records' offsets, in key order, as the list queries return the rows: a
            // walk along them finds each row's record without hashing its key. A key read twice keeps its last
            // record (as the fetch's results do).
            var owners: [(key: Int64, offset: Int, position: Int)] = []
            owners.reserveCapacity(records.count - start)
            // The list's position in the last entity's records (a fetch's rows are mostly of one entity).
            var last: (entityNumber: Int64, position: Int?)?
            for offset in start..<records.count {
                let number = entityNumbers[offset - start]
                let position: Int?
                if let last, last.entityNumber == number {
                    position = last.position
                } else {
                    position = list.positions[number]
                    last = (number, position)
                }
                guard let position else { continue }
                owners.append((records[offset].objectID.referenceKey, offset, position))
            }
            guard !owners.isEmpty else { continue }
            owners.sort { $0.key != $1.key ? $0.key < $1.key : $0.offset < $1.offset }
            var unique = 0
            for index in owners.indices {
                let pair = owners[index]
                if unique > 0, owners[unique - 1].key == pair.key {
                    owners[unique - 1] = pair
                } else {
                    owners[unique] = pair
                    unique += 1
                }
            }
            owners.removeLast(owners.count - unique)
            // One list's destinations gathered here, then copied into an array of their exact count.
            var destinations: [ManagedObjectID] = []
            var first = 0
            while first < owners.count {
                let statement: SQLiteStatement
                let chunk: ArraySlice<(key: Int64, offset: Int, position: Int)>
                let (lowest, highest) = (owners[first].key, owners[owners.count - 1].key)
                if SQLiteStore.keysAreClose(lowest, highest, count: owners.count - first) {
                    // Close keys (most of a table, as fetches read): one range, rows of other owners skipped.
                    chunk = owners[first...]
                    statement = try connection.prepare(list.select + " BETWEEN ? AND ?" + list.orderBy)
                    try statement.bind(chunk.first!.key, at: 1)
                    try statement.bind(chunk.last!.key, at: 2)
                } else {
                    chunk = owners[first..<min(first + limit, owners.count)]
                    statement = try connection.prepare(
                        list.select + " IN (" + SQLiteStore.placeholders(for: chunk.count, limit: limit) + ")"
                            + list.orderBy)
                    var parameter: Int32 = 1
                    for owner in chunk {
                        try statement.bind(owner.key, at: parameter)
                        parameter += 1
                    }
                }
                first += chunk.count
                defer { statement.reset() }
                // The chunk's owner at or after the current row's (rows come in key order).
                var cursor = chunk.startIndex
                var owner: Int64?
                func flush() {
                    defer { destinations.removeAll(keepingCapacity: true) }
                    guard let owner, !destinations.isEmpty else { return }
                    while cursor < chunk.endIndex, owners[cursor].key < owner { cursor += 1 }
                    guard cursor < chunk.endIndex, owners[cursor].key == owner else { return }
                    let (offset, position) = (owners[cursor].offset, owners[cursor].position)
                    var exact: [ManagedObjectID] = []
                    exact.reserveCapacity(destinations.count)
                    exact.append(contentsOf: destinations)
                    records[offset].setRowValue(exact, at: position)
                }
                while try statement.step() == .row {
                    let key = statement.int64(at: 0)
                    if key != owner {
                        flush()
                        owner = key
                    }
                    let number = statement.isNull(at: 2) ? list.destinationNumber : statement.int64(at: 2)
                    destinations.append(SQLRecordLayout.destination(
                        key: statement.int64(at: 1), entityNumber: number, destination: list.destination, ids: ids))
                }
                flush()
            }
        }
    }

    /// One attribute of the current row; `relationship` reads any other field.
    @inline(__always)
    private static func value(_ read: SQLRecordLayout.EntityPlan.Read, of handle: OpaquePointer,
                              statement: SQLiteStatement, relationship: () -> (any Sendable)?) -> (any Sendable)? {
        let column = Int32(truncatingIfNeeded: read.column)
        // The common kinds are read directly, and their NULL test costs a call only when the column reads as
        // zero (NULL reads as 0, and as a nil text pointer). A NULL gives nil: the key is left out.
        switch read.kind {
        case .integer?:
            let integer = sqlite3_column_int64(handle, column)
            if integer == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return Int(integer)
        case .boolean?:
            let integer = sqlite3_column_int64(handle, column)
            if integer == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return integer != 0
        case .real?:
            let real = sqlite3_column_double(handle, column)
            if real == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return real
        case .date?:
            let real = sqlite3_column_double(handle, column)
            if real == 0, sqlite3_column_type(handle, column) == SQLITE_NULL { return nil }
            return Date(timeIntervalSinceReferenceDate: real)
        case .string?:
            guard let text = sqlite3_column_text(handle, column) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
            return String(decoding: bytes, as: UTF8.self)
        case let kind?:
            return ValueCoding.read(statement, at: column, kind: kind)
        case nil:
            return relationship()
        }
    }

    /// A relationship field of the current row: a destination ID, or a list of them; `nil` for none.
    private static func relationship(_ field: SQLRecordLayout.Field, statement: SQLiteStatement, ids: StoreIDs)
        -> (any Sendable)?
    {
        let column = Int32(truncatingIfNeeded: field.column)
        switch field.value {
        case .attribute:
            return nil
        case .toOne(let entityColumn, let destination):
            guard !statement.isNull(at: column) else { return nil }
            let entityNumber = entityColumn.map { Int32(truncatingIfNeeded: $0) }.flatMap {
                statement.isNull(at: $0) ? nil : statement.int64(at: $0)
            }
            return SQLRecordLayout.destination(key: statement.int64(at: column), entityNumber: entityNumber,
                                               destination: destination, ids: ids)
        case .composite(let elements):
            return SQLRecordLayout.compositeValue(elements) {
                ValueCoding.read(statement, at: Int32(truncatingIfNeeded: $0.column), kind: $0.kind)
            }
        case .toMany(let destination):
            // A deferred list has no column; fillLists(_:from:entityNumbers:connection:ids:) reads it.
            guard column >= 0 else { return nil }
            let handle = statement.handle
            guard let text = sqlite3_column_text(handle, column) else { return nil }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
            guard !bytes.isEmpty else { return nil }
            return SQLRecordLayout.parseList(bytes, destination: destination, ids: ids)
        }
    }
}
