import Foundation
import ObjectGraph

/// How one entity's properties map to columns of its root's table (inherited ones included).
final class EntityMapping {
    let entity: EntityDescription
    /// The entity's `Z_ENT`.
    let number: Int64
    let table: TableMapping
    /// Attribute columns, inherited first.
    var attributes: [AttributeColumn] = []
    /// To-one foreign keys, inherited first.
    var toOnes: [ToOneColumn] = []
    /// To-many relationships, inherited first.
    var toManys: [ToManyMapping] = []

    init(entity: EntityDescription, number: Int64, table: TableMapping) {
        self.entity = entity
        self.number = number
        self.table = table
    }

    /// The attribute column of a property name, if the property is a stored attribute.
    func attribute(named name: String) -> AttributeColumn? { attributes.first { $0.attribute.name == name } }
    /// The to-one column of a property name.
    func toOne(named name: String) -> ToOneColumn? { toOnes.first { $0.relationship.name == name } }
    /// The to-many mapping of a property name.
    func toMany(named name: String) -> ToManyMapping? { toManys.first { $0.relationship.name == name } }
}

/// An attribute's column.
struct AttributeColumn {
    let name: String
    let attribute: AttributeDescription
    var kind: ColumnKind { ColumnKind(attribute.attributeType) }
}

/// A to-one relationship's foreign key (`ZNAME`), its destination entity column (`Z<n>_NAME`, only when the
/// destination has sub-entities) and its order column (`Z_FOK_NAME`, when the inverse is an ordered to-many).
struct ToOneColumn {
    let name: String
    let entityColumn: String?
    let orderColumn: String?
    let relationship: RelationshipDescription
}

/// A to-many relationship: either the inverse's foreign key in the destination table, or a join table.
struct ToManyMapping {
    enum Link {
        case foreignKey(table: TableMapping, column: ToOneColumn)
        case join(JoinTableMapping, isOwner: Bool)
    }

    let relationship: RelationshipDescription
    let link: Link
}
