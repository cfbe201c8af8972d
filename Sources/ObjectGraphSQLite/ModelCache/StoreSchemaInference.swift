import Foundation
import ObjectGraph

/// Infers entities from the tables of a Core Data SQLite store that has no model cache.
///
/// Entities come from `Z_PRIMARYKEY` (name, number, parent); the columns of a root entity's table (`Z` + the
/// upper-cased property name) go to the first entity of its tree that uses them, which is the root here: every
/// attribute is declared on the root entity, typed from its declared SQL type. A column `ZNAME` next to
/// `Z1NAME`/`Z_1NAME`-style entity columns, or holding keys, is a to-one relationship whose destination is
/// unknown and is read as an integer attribute. Names are the column names lower-cased without `Z`.
enum StoreSchemaInference {
    static let inferredKey = "ObjectGraphInferred"

    static func entities(from inspection: StoreFileInspection) -> [EntityDescription] {
        let byNumber = Dictionary(inspection.entities.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [Int64: EntityDescription] = [:]
        for row in inspection.entities {
            let entity = EntityDescription(name: row.name)
            entity.userInfo = [inferredKey: "YES"]
            entities[row.number] = entity
        }
        for row in inspection.entities {
            if row.parent != 0, let parent = entities[row.parent], let entity = entities[row.number] {
                parent.subentities.append(entity)
            }
        }
        let tables = Dictionary(
            inspection.tables.map { ($0.name.uppercased(), $0) },
            uniquingKeysWith: { first, _ in first })
        for row in inspection.entities where row.parent == 0 || byNumber[row.parent] == nil {
            guard let entity = entities[row.number], let table = tables["Z" + row.name.uppercased()] else { continue }
            var properties: [PropertyDescription] = []
            for column in table.columns {
                let upper = column.name.uppercased()
                guard upper.hasPrefix("Z"), !upper.hasPrefix("Z_"), upper != "ZPK" else { continue }
                let name = String(column.name.dropFirst()).lowercased()
                let attribute = AttributeDescription(name: name, type: type(of: column.type))
                attribute.userInfo = [inferredKey: "YES"]
                properties.append(attribute)
            }
            entity.properties = properties
        }
        return inspection.entities.compactMap { entities[$0.number] }
    }

    private static func type(of declared: String) -> AttributeType {
        switch declared {
        case "INTEGER": .integer64
        case "FLOAT", "REAL", "DOUBLE": .double
        case "TIMESTAMP": .date
        case "BLOB": .binaryData
        case "VARCHAR", "TEXT": .string
        default: declared.contains("INT") ? .integer64 : declared.contains("CHAR") ? .string : .binaryData
        }
    }
}
