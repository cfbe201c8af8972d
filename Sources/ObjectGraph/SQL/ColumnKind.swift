import Foundation

/// How an attribute's values are stored in a column, and which values predicates may compare with it in SQL.
///
/// Dates are stored as seconds since 2001-01-01 (REAL), Booleans as INTEGER 0/1, UUIDs and binary data as BLOB,
/// URLs and object IDs as TEXT, decimals as their exact text in a `DECIMAL` (NUMERIC affinity) column, and
/// transformable values as an `NSKeyedArchiver` archive (BLOB), as Core Data keeps them.
package enum ColumnKind: Sendable, Equatable {
    case integer
    case real
    case float
    case boolean
    case decimal
    case string
    case date
    case data
    /// Binary data of an attribute that allows external storage
    /// (``AttributeDescription/allowsExternalBinaryDataStorage``): in SQLite, Core Data's form (a marker byte, then
    /// the bytes or the name of a file beside the store); in other SQL stores, as ``data``.
    case externalData
    case uuid
    case url
    case objectID
    case transformable

    package init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double: self = .real
        case .float: self = .float
        case .boolean: self = .boolean
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .binaryData: self = .data
        case .uuid: self = .uuid
        case .uri: self = .url
        case .objectID: self = .objectID
        case .transformable, .undefined: self = .transformable
        // Never a column of its own: SQLSchema gives each element a column (this kind is unused).
        case .composite: self = .transformable
        }
    }

    /// The kind of an attribute's column: its type's, or ``externalData`` for binary data that may be stored
    /// outside the store.
    package init(_ attribute: AttributeDescription) {
        if attribute.attributeType == .binaryData, attribute.allowsExternalBinaryDataStorage {
            self = .externalData
        } else {
            self.init(attribute.attributeType)
        }
    }

    /// The declared SQL type, as Core Data declares it.
    package var declaredType: String {
        switch self {
        case .integer, .boolean: "INTEGER"
        case .real, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .string, .url, .objectID: "VARCHAR"
        case .date: "TIMESTAMP"
        case .data, .externalData, .uuid, .transformable: "BLOB"
        }
    }

    /// Whether SQL compares and orders the stored values exactly as predicates and sort keys compare the
    /// Swift values.
    package var isComparableInSQL: Bool {
        switch self {
        case .integer, .real, .float, .boolean, .string, .date, .data, .uuid, .url: true
        // Data stored outside the store is compared by its marker and file name, not its bytes.
        case .decimal, .objectID, .transformable, .externalData: false
        }
    }

    /// Whether values are numbers for predicate semantics (numbers and Booleans compare with each other).
    package var isNumeric: Bool { self == .integer || self == .real || self == .float || self == .boolean }
}
