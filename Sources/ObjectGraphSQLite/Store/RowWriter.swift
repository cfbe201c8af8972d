import Foundation
import ObjectGraph

/// The `INSERT` and `UPDATE` of one entity's rows, with the record values they bind.
final class RowWriter {  // a class: the save loop holds it per row without copying its tables
    private enum Source {
        case attribute(String, ColumnKind)
        case foreignKey(String)
        case foreignEntity(String)
    }

    /// What a source binds, without its name: rows are bound by position, and a loop over `sources` would retain
    /// and release each name.
    private enum RowBinding {
        case attribute(ColumnKind)
        case foreignKey
        case foreignEntity
    }

    let insertSQL: String
    let updateSQL: String
    let number: Int64
    private let sources: [Source]
    /// How each source binds a row's value, by source position.
    private let bindings: [RowBinding]
    /// The kind of each attribute source, by source position (`nil` for relationship sources).
    private let attributeKinds: [ColumnKind?]
    /// Finds attribute sources by a record's keys without hashing; `nil` when two names share a slot.
    private let matcher: KeyMatcher?
    /// For records that keep their values as rows: the row position of each source (-1 for none) in rows laid out
    /// by the last keys seen (a writer's rows nearly always share its entity's). Saves run one at a time, so the
    /// cache needs no lock.
    private var rowPositions: (keys: RecordKeys, positions: [Int])?

    init(mapping: EntityMapping, schema: SQLiteSchema) {
        var columns: [String] = []
        var sources: [Source] = []
        for column in mapping.attributes where mapping.table.has(column.name) {
            columns.append(column.name)
            sources.append(.attribute(column.attribute.name, column.kind))
        }
        for toOne in mapping.toOnes where mapping.table.has(toOne.name) {
            columns.append(toOne.name)
            sources.append(.foreignKey(toOne.relationship.name))
            if let entityColumn = toOne.entityColumn, mapping.table.has(entityColumn) {
                columns.append(entityColumn)
                sources.append(.foreignEntity(toOne.relationship.name))
            }
        }
        let table = quoted(mapping.table.name)
        insertSQL = "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT" + columns.map { ", " + quoted($0) }.joined()
            + ") VALUES (?, ?, ?" + String(repeating: ", ?", count: columns.count) + ")"
        updateSQL = "UPDATE \(table) SET Z_OPT = ?" + columns.map { ", \(quoted($0)) = ?" }.joined()
            + " WHERE Z_PK = ?"
        number = mapping.number
        self.sources = sources
        bindings = sources.map { source in
            switch source {
            case .attribute(_, let kind): .attribute(kind)
            case .foreignKey: .foreignKey
            case .foreignEntity: .foreignEntity
            }
        }
        attributeKinds = sources.map { source in
            if case .attribute(_, let kind) = source { return kind }
            return nil
        }
        matcher = KeyMatcher(sources.map { source -> String? in
            if case .attribute(let name, _) = source { return name }
            return nil
        })
    }

    /// Binds the record's values from parameter `first` on; returns the next free parameter index.
    func bindValues(of record: StoreRecord, to statement: SQLiteStatement, from first: Int32,
                    schema: SQLiteSchema) throws -> Int32 {
        if let (keys, row) = record.row {
            try bindRow(row, positions: positions(for: keys), to: statement, from: first, schema: schema)
            return first + Int32(sources.count)
        }
        guard let matcher else { return try bindValuesByLookup(of: record, to: statement, from: first, schema: schema) }
        // One pass over the record's entries binds the attributes it has, straight from the dictionary's storage;
        // then what it lacks is bound to NULL and relationships are bound by lookup.
        try withUnsafeTemporaryAllocation(of: Bool.self, capacity: sources.count) { isBound in
            isBound.initialize(repeating: false)
            let values = record.values
            var entry = values.startIndex
            while entry != values.endIndex {
                if let position = matcher.position(of: values.keys[entry]), let kind = attributeKinds[position] {
                    try ValueCoding.bind(values.values[entry], kind: kind, to: statement, at: first + Int32(position))
                    isBound[position] = true
                }
                values.formIndex(after: &entry)
            }
            for position in sources.indices where !isBound[position] {
                try bind(sources[position], of: record, to: statement, at: first + Int32(position), schema: schema)
            }
        }
        return first + Int32(sources.count)
    }

    /// The row position of each source in rows laid out by `keys`.
    private func positions(for keys: RecordKeys) -> [Int] {
        if let cached = rowPositions, cached.keys === keys { return cached.positions }
        let positions = sources.map { source in
            switch source {
            case .attribute(let name, _), .foreignKey(let name), .foreignEntity(let name): keys.position(of: name) ?? -1
            }
        }
        rowPositions = (keys, positions)
        return positions
    }

    /// Binds a record's row: each source's value by position. Attribute values of the common types are read in
    /// place (see `RowSlotReader`); the others are copied out of the row.
    private func bindRow(_ row: [(any Sendable)?], positions: [Int], to statement: SQLiteStatement, from first: Int32,
                         schema: SQLiteSchema) throws {
        let readsSlots = RowSlotReader.isUsable
        try row.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)
            for index in bindings.indices {
                let parameter = first + Int32(index)
                let position = positions[index]
                guard position >= 0, let base else {
                    try statement.bindNull(at: parameter)
                    continue
                }
                if readsSlots, case .attribute(let kind) = bindings[index],
                    try ValueCoding.bind(slot: RowSlotReader.slotPointer(base, position), kind: kind, to: statement,
                                         at: parameter)
                {
                    continue
                }
                try bindValue(buffer[position], binding: bindings[index], to: statement, at: parameter, schema: schema)
            }
        }
    }

    /// Binds one value of a row (NULL for `nil`).
    private func bindValue(_ value: (any Sendable)?, binding: RowBinding, to statement: SQLiteStatement,
                           at parameter: Int32, schema: SQLiteSchema) throws {
        guard let value else {
            try statement.bindNull(at: parameter)
            return
        }
        switch binding {
        case .attribute(let kind):
            try ValueCoding.bind(value, kind: kind, to: statement, at: parameter)
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

    /// ``bindValues(of:to:from:schema:)`` with one dictionary lookup per source.
    private func bindValuesByLookup(of record: StoreRecord, to statement: SQLiteStatement, from first: Int32,
                                    schema: SQLiteSchema) throws -> Int32 {
        var index = first
        for source in sources {
            try bind(source, of: record, to: statement, at: index, schema: schema)
            index += 1
        }
        return index
    }

    /// Binds one source's value, looked up in the record (NULL when absent).
    private func bind(_ source: Source, of record: StoreRecord, to statement: SQLiteStatement, at index: Int32,
                      schema: SQLiteSchema) throws {
        switch source {
        case .attribute(let name, let kind):
            // Bound from the dictionary's storage (a borrow), not from a copy of the optional value.
            if let value = record[name] {
                try ValueCoding.bind(value, kind: kind, to: statement, at: index)
            } else {
                try statement.bindNull(at: index)
            }
        case .foreignKey(let name):
            if let id = record[name] as? ManagedObjectID {
                try statement.bind(id.referenceKey, at: index)
            } else {
                try statement.bindNull(at: index)
            }
        case .foreignEntity(let name):
            if let id = record[name] as? ManagedObjectID, let mapping = schema.entities[id.entityName] {
                try statement.bind(mapping.number, at: index)
            } else {
                try statement.bindNull(at: index)
            }
        }
    }
}
