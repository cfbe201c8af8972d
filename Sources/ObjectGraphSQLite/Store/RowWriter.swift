import Foundation
import ObjectGraph

/// The `INSERT` and `UPDATE` of one entity's rows, with the record values they bind.
struct RowWriter {
    private enum Source {
        case attribute(String, ColumnKind)
        case foreignKey(String)
        case foreignEntity(String)
    }

    let insertSQL: String
    let updateSQL: String
    let number: Int64
    private let sources: [Source]

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
    }

    /// Binds the record's values from parameter `first` on; returns the next free parameter index.
    func bindValues(of record: StoreRecord, to statement: SQLiteStatement, from first: Int32,
                    schema: SQLiteSchema) throws -> Int32 {
        var index = first
        for source in sources {
            switch source {
            case .attribute(let name, let kind):
                // Bound from the dictionary's storage (a borrow), not from a copy of the optional value.
                if let position = record.values.index(forKey: name) {
                    try ValueCoding.bind(record.values.values[position], kind: kind, to: statement, at: index)
                } else {
                    try statement.bindNull(at: index)
                }
            case .foreignKey(let name):
                if let id = record.values[name] as? ManagedObjectID {
                    try statement.bind(id.referenceKey, at: index)
                } else {
                    try statement.bindNull(at: index)
                }
            case .foreignEntity(let name):
                if let id = record.values[name] as? ManagedObjectID, let mapping = schema.entities[id.entityName] {
                    try statement.bind(mapping.number, at: index)
                } else {
                    try statement.bindNull(at: index)
                }
            }
            index += 1
        }
        return index
    }
}
