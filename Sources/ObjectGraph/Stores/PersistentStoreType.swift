import Foundation

/// The name of a kind of persistent store, as Core Data names its types.
///
/// The in-memory type is built in; `ObjectGraphXML` and `ObjectGraphSQLite` register `.xml`, `.binary` and
/// `.sqlite`, and custom types register under their own names with
/// ``PersistentStoreCoordinator/registerStoreClass(_:forStoreType:)``.
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The type's name.
    public var rawValue: String

    /// Creates a type from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a type from a string literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The in-memory store: nothing is written anywhere.
    public static let inMemory = PersistentStoreType(rawValue: "InMemory")

    public var description: String { rawValue }
}

/// A key of a store's options dictionary.
public struct PersistentStoreOptionKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The option's name.
    public var rawValue: String

    /// Creates a key from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a key from a string literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// `Bool`: open the store read-only; a save that changes its objects fails.
    public static let readOnly: PersistentStoreOptionKey = "NSReadOnlyPersistentStoreOption"
    /// `Bool`: open a store written with another model version anyway (no migration is performed).
    public static let ignoresModelVersion: PersistentStoreOptionKey = "ObjectGraphIgnoresModelVersionOption"
    /// `Bool`: migrate a store written with an earlier model automatically where the store type can.
    public static let migratePersistentStoresAutomatically: PersistentStoreOptionKey =
        "NSMigratePersistentStoresAutomaticallyOption"
    /// `Bool`: infer the mapping for lightweight migration.
    public static let inferMappingModelAutomatically: PersistentStoreOptionKey = "NSInferMappingModelAutomaticallyOption"
    /// `Bool`: record every save as a ``PersistentHistoryTransaction`` in the store, in the same transaction (or
    /// file write) as the save itself (Core Data's `NSPersistentHistoryTrackingKey`). Stores whose type keeps no
    /// history (``PersistentStore/supportsPersistentHistory``) ignore it.
    public static let persistentHistoryTracking: PersistentStoreOptionKey = "NSPersistentHistoryTrackingKey"
}

/// A store's options.
public typealias PersistentStoreOptions = [PersistentStoreOptionKey: any Sendable]

extension Dictionary where Key == PersistentStoreOptionKey, Value == any Sendable {
    /// The Boolean value of an option (false when absent).
    public func flag(_ key: PersistentStoreOptionKey) -> Bool {
        (self[key] as? Bool) ?? false
    }
}
