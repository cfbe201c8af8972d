import Foundation

/// A store's metadata: a property-list dictionary kept inside the store, as in Core Data.
///
/// The well-known keys are `NSStoreUUID` (the store's identifier), `NSStoreType` and
/// `NSStoreModelVersionHashes` (the entity version hashes of the model that wrote the store). Values must be
/// property-list values: `String`, `Int`, `Double`, `Bool`, `Date`, `Data`, arrays and dictionaries of those.
public struct StoreMetadata: Sendable, CustomStringConvertible {
    /// The metadata values by key.
    public var values: [String: any Sendable]

    /// Creates metadata from values.
    public init(_ values: [String: any Sendable] = [:]) {
        self.values = values
    }

    /// The key of the store's UUID.
    public static let storeUUIDKey = "NSStoreUUID"
    /// The key of the store type's name.
    public static let storeTypeKey = "NSStoreType"
    /// The key of the entity version hashes.
    public static let modelVersionHashesKey = "NSStoreModelVersionHashes"
    /// The key of the model's version identifiers.
    public static let modelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"

    /// A value by key.
    public subscript(key: String) -> (any Sendable)? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The store's UUID string.
    public var storeUUID: String? {
        get { values[Self.storeUUIDKey] as? String }
        set { values[Self.storeUUIDKey] = newValue }
    }

    /// The store type's name.
    public var storeType: String? {
        get { values[Self.storeTypeKey] as? String }
        set { values[Self.storeTypeKey] = newValue }
    }

    /// The version hashes of the entities of the model that last wrote the store.
    public var modelVersionHashes: [String: Data]? {
        get { values[Self.modelVersionHashesKey] as? [String: Data] }
        set { values[Self.modelVersionHashesKey] = newValue }
    }

    public var description: String {
        "StoreMetadata(" + values.keys.sorted().joined(separator: ", ") + ")"
    }
}
