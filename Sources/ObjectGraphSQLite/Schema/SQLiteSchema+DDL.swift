import Foundation
import ObjectGraph

/// Quotes an SQL identifier (names come from the model; they are quoted, never trusted).
func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension SQLiteSchema {
    /// The statements that create Core Data's bookkeeping tables.
    static let bookkeepingDDL = [
        "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// `CREATE TABLE` for an entity table.
    func createStatement(for table: TableMapping) -> String {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            + table.columns.map { "\(quoted($0.name)) \($0.type)" }
        return "CREATE TABLE IF NOT EXISTS \(quoted(table.name)) ( " + columns.joined(separator: ", ") + " )"
    }

    /// `CREATE TABLE` for a join table.
    func createStatement(for join: JoinTableMapping) -> String {
        var columns = ["\(quoted(join.ownerColumn)) INTEGER", "\(quoted(join.otherColumn)) INTEGER"]
        if let order = join.orderColumn { columns.append("\(quoted(order)) INTEGER") }
        columns.append("PRIMARY KEY (\(quoted(join.ownerColumn)), \(quoted(join.otherColumn)))")
        return "CREATE TABLE IF NOT EXISTS \(quoted(join.name)) ( " + columns.joined(separator: ", ") + " )"
    }

    /// The join tables that touch a held table.
    var heldJoinTables: [JoinTableMapping] {
        let held = Set(heldTables.map(\.name))
        return joinTables.values.filter { held.contains($0.ownerTable.name) || held.contains($0.otherTable.name) }
            .sorted { $0.name < $1.name }
    }

    /// The `CREATE INDEX` statements of a table: foreign keys, `Z_ENT` when the table hosts several entities,
    /// indexed attributes, the entities' fetch indexes and their uniqueness constraints.
    func indexStatements(for table: TableMapping) -> [String] {
        var statements: [String] = []
        func index(_ name: String, _ columns: [String]) {
            statements.append("CREATE INDEX IF NOT EXISTS \(quoted(name)) ON \(quoted(table.name)) ("
                + columns.joined(separator: ", ") + ")")
        }
        for column in table.indexedColumns { index("\(table.name)_\(column)_INDEX", [quoted(column)]) }
        if table.entityNumbers.count > 1 { index("\(table.name)_Z_ENT_INDEX", ["Z_ENT"]) }
        for entity in table.root.selfAndDescendants {
            let mapping = self.mapping(entity)
            for property in entity.properties where property.isIndexed && !property.isTransient {
                if let column = mapping.attribute(named: property.name)?.name {
                    index("\(table.name)_\(column)_INDEX", [quoted(column)])
                }
            }
            for fetchIndex in entity.indexes {
                let columns = fetchIndex.propertyNames.compactMap { name -> String? in
                    let column = mapping.attribute(named: name)?.name ?? mapping.toOne(named: name)?.name
                    return column.map { quoted($0) + (fetchIndex.descending.contains(name) ? " DESC" : "") }
                }
                guard columns.count == fetchIndex.propertyNames.count, !columns.isEmpty else { continue }
                index("Z_\(entity.name)_\(fetchIndex.name)", columns)
            }
            // Saves look up the saved objects sharing a new object's constrained values (not a UNIQUE index: the
            // coordinator checks, and resolves conflicts by the merge policy).
            for (number, constraint) in entity.uniquenessConstraints.enumerated() {
                let columns = constraint.compactMap { mapping.attribute(named: $0).map { quoted($0.name) } }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                index("Z_\(entity.name)_UNIQUENESS_\(number)", columns)
            }
        }
        return statements
    }

    /// Every statement that creates the store's tables and indexes (idempotent).
    var creationStatements: [String] {
        var statements = Self.bookkeepingDDL
        for table in heldTables {
            statements.append(createStatement(for: table))
            statements += indexStatements(for: table)
        }
        for join in heldJoinTables {
            statements.append(createStatement(for: join))
            statements.append("CREATE INDEX IF NOT EXISTS \(quoted(join.name + "_" + join.otherColumn + "_INDEX")) ON "
                + "\(quoted(join.name)) (\(quoted(join.otherColumn)))")
        }
        return statements
    }

    /// The `Z_PRIMARYKEY` rows of the model's entities: number, name, superentity number.
    var primaryKeyRows: [(number: Int64, name: String, superNumber: Int64)] {
        entities.values.map { mapping in
            (mapping.number, mapping.entity.name, mapping.entity.superentity.map { self.mapping($0).number } ?? 0)
        }.sorted { $0.number < $1.number }
    }
}
