import ObjectGraph

/// The PostgreSQL layout of a store's schema: Core Data's tables (the shared `SQLSchema` mapping: one table per
/// inheritance root with `Z_PK`, `Z_ENT`, `Z_OPT`, join tables, `Z_FOK_` order columns) with PostgreSQL types.
///
/// Integers and Booleans are `BIGINT`, floating-point numbers and dates `DOUBLE PRECISION` (dates as seconds since
/// 2001, as Core Data stores them), strings, URLs, object IDs and decimals `TEXT COLLATE "C"` (byte order, which
/// for UTF-8 is Unicode-scalar order), data, UUIDs and transformable values `BYTEA`.
enum PostgresSchema {
    /// The bookkeeping tables: entity numbers and key counters, and the metadata row with the change token.
    static let bookkeepingDDL = [
        "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT BIGINT PRIMARY KEY, Z_NAME TEXT, Z_SUPER BIGINT, Z_MAX BIGINT)",
        "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION BIGINT PRIMARY KEY, Z_UUID TEXT, Z_PLIST BYTEA, "
            + "Z_TOKEN BIGINT NOT NULL DEFAULT 0)",
    ]

    /// The PostgreSQL type of a column declared with a Core Data (SQLite) type.
    static func type(declared: String) -> String {
        let type = castType(declared: declared)
        return type == "TEXT" ? "TEXT COLLATE \"C\"" : type
    }

    /// The type a bound value is cast to for a column declared with a Core Data type (``type(declared:)`` without
    /// its collation, which a cast does not take).
    static func castType(declared: String) -> String {
        switch declared {
        case "INTEGER": "BIGINT"
        case "FLOAT", "TIMESTAMP": "DOUBLE PRECISION"
        case "BLOB": "BYTEA"
        default: "TEXT"
        }
    }

    /// `CREATE TABLE` for an entity table.
    static func createStatement(for table: TableMapping) -> String {
        let columns =
            ["Z_PK BIGINT PRIMARY KEY", "Z_ENT BIGINT NOT NULL", "Z_OPT BIGINT NOT NULL"]
            + table.columns.map { "\(quoted($0.name)) \(type(declared: $0.type))" }
        return "CREATE TABLE IF NOT EXISTS \(quoted(table.name)) ( " + columns.joined(separator: ", ") + " )"
    }

    /// `CREATE TABLE` for a join table.
    static func createStatement(for join: JoinTableMapping) -> String {
        var columns = ["\(quoted(join.ownerColumn)) BIGINT NOT NULL", "\(quoted(join.otherColumn)) BIGINT NOT NULL"]
        if let order = join.orderColumn { columns.append("\(quoted(order)) BIGINT") }
        columns.append("PRIMARY KEY (\(quoted(join.ownerColumn)), \(quoted(join.otherColumn)))")
        return "CREATE TABLE IF NOT EXISTS \(quoted(join.name)) ( " + columns.joined(separator: ", ") + " )"
    }

    /// Every statement that creates a schema's tables and indexes (idempotent).
    static func creationStatements(_ schema: SQLSchema) -> [String] {
        var statements = bookkeepingDDL
        for table in schema.heldTables {
            statements.append(createStatement(for: table))
            statements += schema.indexStatements(for: table, nullsFirst: true)
        }
        for join in schema.heldJoinTables {
            statements.append(createStatement(for: join))
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(quoted(join.name + "_" + join.otherColumn + "_INDEX")) ON "
                    + "\(quoted(join.name)) (\(quoted(join.otherColumn)))")
        }
        return statements
    }

    /// `ALTER TABLE … ADD COLUMN IF NOT EXISTS` for every column of the held tables: lightweight migration adds
    /// the columns of new attributes and relationships; existing ones are left as they are.
    static func columnAdditions(_ schema: SQLSchema) -> [String] {
        schema.heldTables.flatMap { table in
            table.columns.map {
                "ALTER TABLE \(quoted(table.name)) ADD COLUMN IF NOT EXISTS \(quoted($0.name)) "
                    + type(declared: $0.type)
            }
        }
    }
}
