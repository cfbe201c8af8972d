import Foundation

/// One table: an inheritance root with the columns of the root and all its sub-entities.
package final class TableMapping {
    /// `Z` + the upper-cased root entity name.
    package let name: String
    /// The inheritance root.
    package let root: EntityDescription
    /// The columns after `Z_PK`, `Z_ENT`, `Z_OPT`, with their declared types, in order.
    package private(set) var columns: [(name: String, type: String)] = []
    /// The numbers of the entities whose rows live here.
    package var entityNumbers: [Int64] = []
    /// Foreign-key columns, indexed as Core Data indexes them.
    package var indexedColumns: [String] = []
    /// The columns the file's table really has (upper-cased); `nil` until checked against a file.
    package var existingColumns: Set<String>?

    package init(name: String, root: EntityDescription) {
        self.name = name
        self.root = root
    }

    package func addColumn(_ name: String, type: String) {
        columns.append((name, type))
    }

    /// Whether the file's table has a column (always true before the table was checked against a file).
    package func has(_ column: String) -> Bool {
        existingColumns?.contains(column.uppercased()) ?? true
    }
}

/// A join table: one row per pair of a many-to-many (or inverse-less to-many) relationship.
///
/// Core Data names it `Z_<owner entity number><RELATIONSHIP>` with columns `Z_<owner number><INVERSE>`
/// (the owner's key) and `Z_<other number><RELATIONSHIP>` (the destination's key). The owner side writes the rows;
/// the ordered side owns the table, so `Z_FOK_…` keeps its order.
package struct JoinTableMapping {
    package let name: String
    package let ownerRelationship: RelationshipDescription
    package let ownerTable: TableMapping
    package let ownerColumn: String
    package let otherTable: TableMapping
    package let otherColumn: String
    package let orderColumn: String?
}
