import Foundation
import ObjectGraph

/// The `INSERT` and `UPDATE` of one entity's rows, with the record values they bind.
final class RowWriter {  // a class: the save loop holds it per row without copying its tables
    /// What a source binds: an attribute's value, or a to-one relationship's key or entity number.
    private typealias Binding = SQLWrittenColumn.Source

    let insertSQL: String
    let updateSQL: String
    /// How many rows one `INSERT` of ``multiRowInsertSQL`` writes (1: the entity has too many columns for more).
    let rowsPerInsert: Int
    /// An `INSERT` of ``rowsPerInsert`` rows: a run of new objects is written in statements of this many rows, which
    /// spares SQLite a statement execution per row (about a quarter of its time inserting rows of a few columns).
    let multiRowInsertSQL: String
    /// The parameters each inserted row binds: `Z_PK`, `Z_ENT`, `Z_OPT`, then the sources.
    var parametersPerRow: Int { 3 + bindings.count }
    let number: Int64
    /// The record key each bound column's value comes from (a relationship's name for its key and entity columns),
    /// by source position.
    private let names: [String]
    /// How each source binds its value, by source position (apart from the names, so that binding a row by
    /// position retains no name).
    private let bindings: [Binding]
    /// The path of each composite element's value below its composite, by source position (empty for the others).
    private let elementPaths: [[String]]
    /// Finds attribute sources by a record's keys without hashing; `nil` when two names share a slot.
    private let matcher: KeyMatcher?
    /// For records that keep their values as rows: the row position of each source (-1 for none) in rows laid out
    /// by the last keys seen (a writer's rows nearly always share its entity's). Saves run one at a time, so the
    /// cache needs no lock.
    private var rowPositions: (keys: RecordKeys, positions: [Int])?
    /// The table's quoted name and each source's quoted column, for `UPDATE`s of some columns.
    private let table: String
    private let quotedColumns: [String]
    /// The source positions of each record key (a composite's elements, a relationship's key and entity columns).
    private let sourcesByKey: [String: [Int]]
    /// The `UPDATE`s of some columns made so far, by their source positions.
    private var partialUpdateSQL: [[Int]: String] = [:]

    /// Rows per multi-row `INSERT` at most: with fewer SQLite pays more per row, with more the statement's
    /// parameters outgrow what one row's binding keeps in cache, for no further gain.
    static let maximumRowsPerInsert = 32

    /// A writer of the entity's rows; `parameterLimit` is the connection's `SQLITE_LIMIT_VARIABLE_NUMBER`.
    init(mapping: SQLEntityMapping, schema: SQLSchema, parameterLimit: Int) {
        let written = mapping.writtenColumns
        let columns = written.map(\.name)
        let names = written.map(\.key)
        let bindings = written.map(\.source)
        let table = quoted(mapping.table.name)
        let insertPrefix = "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT" + columns.map { ", " + quoted($0) }.joined()
            + ") VALUES "
        let rowParameters = "(?, ?, ?" + String(repeating: ", ?", count: columns.count) + ")"
        insertSQL = insertPrefix + rowParameters
        rowsPerInsert = max(1, min(Self.maximumRowsPerInsert, parameterLimit / (3 + columns.count)))
        multiRowInsertSQL = insertPrefix + Array(repeating: rowParameters, count: rowsPerInsert).joined(separator: ", ")
        updateSQL = "UPDATE \(table) SET Z_OPT = ?" + columns.map { ", \(quoted($0)) = ?" }.joined()
            + " WHERE Z_PK = ?"
        self.table = table
        quotedColumns = columns.map(quoted)
        sourcesByKey = Dictionary(grouping: names.indices, by: { names[$0] })
        number = mapping.number
        self.names = names
        self.bindings = bindings
        elementPaths = written.map(\.elementPath)
        matcher = KeyMatcher(zip(names, bindings).map { name, binding in
            if case .attribute = binding { return name }
            return nil
        })
    }

    /// Binds the record's values from parameter `first` on; returns the next free parameter index.
    func bindValues(of record: StoreRecord, to statement: SQLiteStatement, from first: Int32,
                    schema: SQLSchema) throws -> Int32 {
        let next = first + Int32(bindings.count)
        if let (keys, row) = record.row {
            try bindRow(row, positions: positions(for: keys), to: statement, from: first, schema: schema)
            return next
        }
        guard let matcher else {
            for index in bindings.indices {
                try bindValue(record[names[index]], binding: bindings[index], source: index, to: statement,
                              at: first + Int32(index), schema: schema)
            }
            return next
        }
        // One pass over the record's entries binds the attributes it has, straight from the dictionary's storage;
        // then what it lacks is bound to NULL and relationships are bound by lookup.
        try withUnsafeTemporaryAllocation(of: Bool.self, capacity: bindings.count) { isBound in
            isBound.initialize(repeating: false)
            let values = record.values
            var entry = values.startIndex
            while entry != values.endIndex {
                if let position = matcher.position(of: values.keys[entry]),
                    case .attribute(let kind) = bindings[position]
                {
                    try ValueCoding.bind(values.values[entry], kind: kind, to: statement, at: first + Int32(position))
                    isBound[position] = true
                }
                values.formIndex(after: &entry)
            }
            for position in bindings.indices where !isBound[position] {
                try bindValue(record[names[position]], binding: bindings[position], source: position,
                              to: statement, at: first + Int32(position), schema: schema)
            }
        }
        return next
    }

    /// The source positions, ascending, of the columns that hold the values of `keys` (a record's `changedKeys`);
    /// keys of no column (transient properties, to-many relationships) add none.
    func sources(writing keys: Set<String>) -> [Int] {
        var sources: [Int] = []
        for key in keys { sources += sourcesByKey[key] ?? [] }
        return sources.sorted()
    }

    /// An `UPDATE` of `Z_OPT` and the columns of `sources` (``sources(writing:)``), whose parameters are the
    /// version, those columns' values in order, then `Z_PK`.
    func updateSQL(writing sources: [Int]) -> String {
        if let known = partialUpdateSQL[sources] { return known }
        let sql = "UPDATE \(table) SET Z_OPT = ?" + sources.map { ", \(quotedColumns[$0]) = ?" }.joined()
            + " WHERE Z_PK = ?"
        partialUpdateSQL[sources] = sql
        return sql
    }

    /// Binds the values of the columns of `sources` (``sources(writing:)``) from parameter `first` on; returns the
    /// next free parameter index.
    func bindValues(
        of record: StoreRecord, sources: [Int], to statement: SQLiteStatement, from first: Int32, schema: SQLSchema
    ) throws -> Int32 {
        let row = record.row
        let layout = row.map { self.positions(for: $0.keys) }
        for (offset, source) in sources.enumerated() {
            let value: (any Sendable)?
            if let row, let layout {
                value = layout[source] >= 0 ? row.values[layout[source]] : nil
            } else {
                value = record[names[source]]
            }
            let parameter = first + Int32(offset)
            try bindValue(
                value, binding: bindings[source], source: source, to: statement, at: parameter, schema: schema)
        }
        return first + Int32(sources.count)
    }

    /// The row position of each source in rows laid out by `keys`.
    private func positions(for keys: RecordKeys) -> [Int] {
        if let cached = rowPositions, cached.keys === keys { return cached.positions }
        let positions = names.map { keys.position(of: $0) ?? -1 }
        rowPositions = (keys, positions)
        return positions
    }

    /// Binds a record's row: each source's value by position.
    private func bindRow(_ row: [(any Sendable)?], positions: [Int], to statement: SQLiteStatement, from first: Int32,
                         schema: SQLSchema) throws {
        for index in bindings.indices {
            let parameter = first + Int32(index)
            let position = positions[index]
            guard position >= 0 else {
                try statement.bindNull(at: parameter)
                continue
            }
            try bindValue(
                row[position], binding: bindings[index], source: index, to: statement, at: parameter, schema: schema)
        }
    }

    /// Binds one source's value (NULL for `nil`); `source` is its position.
    private func bindValue(_ value: (any Sendable)?, binding: Binding, source: Int, to statement: SQLiteStatement,
                           at parameter: Int32, schema: SQLSchema) throws {
        guard let value else {
            try statement.bindNull(at: parameter)
            return
        }
        switch binding {
        case .attribute(let kind):
            try ValueCoding.bind(value, kind: kind, to: statement, at: parameter)
        case .compositeElement(let kind):
            if let element = CompositeAttributeDescription.value(at: elementPaths[source], in: value) {
                try ValueCoding.bind(element, kind: kind, to: statement, at: parameter)
            } else {
                try statement.bindNull(at: parameter)
            }
        case .foreignKey:
            if let id = value as? ManagedObjectID {
                try statement.bind(id.referenceKey, at: parameter)
            } else {
                try statement.bindNull(at: parameter)
            }
        case .foreignEntity:
            if let id = value as? ManagedObjectID, let mapping = schema.entities[id.entityName] {
                try statement.bind(mapping.number, at: parameter)
            } else {
                try statement.bindNull(at: parameter)
            }
        }
    }
}
