import Foundation
import ObjectGraph
import PostgresNIO

/// Reads rows of a `SELECT` laid out by a `SQLRecordLayout` into `StoreRecord`s.
struct PostgresRecordReader {
    let layout: SQLRecordLayout

    /// The select-list expressions after `Z_PK, Z_ENT, Z_OPT`.
    var columns: [String] { layout.columns }

    /// Builds the reader for rows of `entities` read from `alias`, limited to `properties` when given.
    init(
        schema: SQLSchema, entities: [SQLEntityMapping], alias: String, aliases: AliasCounter,
        properties: Set<String>?
    ) {
        layout = SQLRecordLayout(
            schema: schema, entities: entities, alias: alias, aliases: aliases, properties: properties,
            dialect: PostgresDialect())
    }

    /// The record of a row (its cells), whose key and entity number the caller read.
    func record(_ cells: [PostgresCell], id: ManagedObjectID, entityNumber: Int64, ids: StoreIDs) throws
        -> StoreRecord
    {
        let version = try cells[2].decode(Int64.self)
        guard let plan = layout.plan(forEntityNumber: entityNumber) else {
            return StoreRecord(objectID: id, version: version)
        }
        var values: [String: any Sendable] = [:]
        values.reserveCapacity(plan.fields.count)
        for field in plan.fields {
            let stored = try SQLValue(cells[field.column])
            switch field.value {
            case .attribute(let kind):
                values[field.name] = SQLValueCoding.value(stored, kind: kind)
            case .toOne(let entityColumn, let destination):
                guard case .integer(let key) = stored else { continue }
                var entityNumber: Int64?
                if let entityColumn, case .integer(let number) = try SQLValue(cells[entityColumn]) {
                    entityNumber = number
                }
                values[field.name] = SQLRecordLayout.destination(
                    key: key, entityNumber: entityNumber, destination: destination, ids: ids)
            case .toMany(let destination):
                guard case .text(let list) = stored, !list.isEmpty else { continue }
                values[field.name] = SQLRecordLayout.parseList(list, destination: destination, ids: ids)
            }
        }
        return StoreRecord(objectID: id, version: version, values: values)
    }
}
