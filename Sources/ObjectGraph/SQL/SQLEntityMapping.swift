import Foundation

/// How one entity's properties map to columns of its root's table (inherited ones included).
package final class SQLEntityMapping {
    package let entity: EntityDescription
    /// The entity's `Z_ENT`.
    package let number: Int64
    package let table: TableMapping
    /// Attribute columns, inherited first.
    package var attributes: [AttributeColumn] = []
    /// To-one foreign keys, inherited first.
    package var toOnes: [ToOneColumn] = []
    /// To-many relationships, inherited first.
    package var toManys: [ToManyMapping] = []

    package init(entity: EntityDescription, number: Int64, table: TableMapping) {
        self.entity = entity
        self.number = number
        self.table = table
    }

    /// The attribute column of a property name, if the property is a stored attribute, or of an element of a
    /// composite attribute by its key path (`magnitude.richter`).
    package func attribute(named name: String) -> AttributeColumn? { attributes.first { $0.keyPath == name } }
    /// The to-one column of a property name.
    package func toOne(named name: String) -> ToOneColumn? { toOnes.first { $0.relationship.name == name } }
    /// The to-many mapping of a property name.
    package func toMany(named name: String) -> ToManyMapping? { toManys.first { $0.relationship.name == name } }
}

/// An attribute's column, or the column of one element of a composite attribute (each has its own).
package struct AttributeColumn {
    package let name: String
    /// The attribute, or the composite's element the column holds.
    package let attribute: AttributeDescription
    /// The composite attribute whose element the column holds.
    package let composite: CompositeAttributeDescription?
    /// The element's path below the composite (`["coordinate", "latitude"]`); empty for a plain attribute.
    package let elementPath: [String]
    /// The attribute's name, or the element's key path from the entity (`magnitude.richter`).
    package let keyPath: String
    package var kind: ColumnKind { ColumnKind(attribute) }

    package init(
        name: String, attribute: AttributeDescription, composite: CompositeAttributeDescription? = nil,
        elementPath: [String] = []
    ) {
        self.name = name
        self.attribute = attribute
        self.composite = composite
        self.elementPath = elementPath
        keyPath = composite.map { ([$0.name] + elementPath).joined(separator: ".") } ?? attribute.name
    }
}

/// A to-one relationship's foreign key (`ZNAME`), its destination entity column (`Z<n>_NAME`, only when the
/// destination has sub-entities) and its order column (`Z_FOK_NAME`, when the inverse is an ordered to-many).
package struct ToOneColumn {
    package let name: String
    package let entityColumn: String?
    package let orderColumn: String?
    package let relationship: RelationshipDescription
}

/// A to-many relationship: either the inverse's foreign key in the destination table, or a join table.
package struct ToManyMapping {
    package enum Link {
        case foreignKey(table: TableMapping, column: ToOneColumn)
        case join(JoinTableMapping, isOwner: Bool)
    }

    package let relationship: RelationshipDescription
    package let link: Link
}

/// A column a save writes for an entity (after `Z_PK`, `Z_ENT`, `Z_OPT`), and where its value comes from.
package struct SQLWrittenColumn {
    /// What a column binds: an attribute's value, or a to-one relationship's key or destination entity number.
    package enum Source {
        case attribute(ColumnKind)
        /// An element of the composite attribute the key names, at ``SQLWrittenColumn/elementPath`` below it (the
        /// cases carry no reference, so that a save loop copies them bit for bit).
        case compositeElement(ColumnKind)
        case foreignKey
        case foreignEntity
    }

    /// The column's name.
    package let name: String
    /// The record key the value comes from (a relationship's name for its key and entity columns).
    package let key: String
    package let source: Source
    /// For a composite's element: its path below the composite (`["coordinate", "latitude"]`).
    package let elementPath: [String]

    package init(name: String, key: String, source: Source, elementPath: [String] = []) {
        self.name = name
        self.key = key
        self.source = source
        self.elementPath = elementPath
    }
}

extension SQLEntityMapping {
    /// The columns a save writes, in order: attributes, then to-one keys, each followed by its entity column when
    /// it has one; columns the table lacks (a schema not yet migrated) are left out.
    package var writtenColumns: [SQLWrittenColumn] {
        var columns: [SQLWrittenColumn] = []
        for column in attributes where table.has(column.name) {
            if let composite = column.composite {
                columns.append(
                    SQLWrittenColumn(
                        name: column.name, key: composite.name,
                        source: .compositeElement(column.kind), elementPath: column.elementPath))
                continue
            }
            columns.append(
                SQLWrittenColumn(name: column.name, key: column.attribute.name, source: .attribute(column.kind)))
        }
        for toOne in toOnes where table.has(toOne.name) {
            columns.append(SQLWrittenColumn(name: toOne.name, key: toOne.relationship.name, source: .foreignKey))
            if let entityColumn = toOne.entityColumn, table.has(entityColumn) {
                columns.append(
                    SQLWrittenColumn(name: entityColumn, key: toOne.relationship.name, source: .foreignEntity))
            }
        }
        return columns
    }
}
