import Foundation
import ObjectGraph

extension SQLSchema {
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
}
