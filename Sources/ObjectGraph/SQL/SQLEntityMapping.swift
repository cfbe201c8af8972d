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

    /// The attribute column of a property name, if the property is a stored attribute.
    package func attribute(named name: String) -> AttributeColumn? { attributes.first { $0.attribute.name == name } }
    /// The to-one column of a property name.
    package func toOne(named name: String) -> ToOneColumn? { toOnes.first { $0.relationship.name == name } }
    /// The to-many mapping of a property name.
    package func toMany(named name: String) -> ToManyMapping? { toManys.first { $0.relationship.name == name } }
}

/// An attribute's column.
package struct AttributeColumn {
    package let name: String
    package let attribute: AttributeDescription
    package var kind: ColumnKind { ColumnKind(attribute.attributeType) }
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
