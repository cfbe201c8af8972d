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
    /// The key of the digest of the entity version hashes Core Data writes beside them (a base64 string).
    public static let modelVersionHashesDigestKey = "NSStoreModelVersionHashesDigest"
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

    /// The version hashes of the entities of the model that last wrote the store. Setting them sets their digest
    /// (``modelVersionHashesDigestKey``) too, so that it never describes other hashes.
    public var modelVersionHashes: [String: Data]? {
        get { values[Self.modelVersionHashesKey] as? [String: Data] }
        set {
            values[Self.modelVersionHashesKey] = newValue
            values[Self.modelVersionHashesDigestKey] = newValue.map(Self.digest(of:))
        }
    }

    /// The digest Core Data writes of entity version hashes: SHA-512 of each entity's name followed by its hash, in
    /// order of name, in base64.
    public static func digest(of hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in hashes.keys.sorted() {
            bytes.append(contentsOf: Data(name.utf8))
            bytes.append(hashes[name]!)
        }
        return SHA512.hash(bytes).base64EncodedString()
    }

    public var description: String {
        "StoreMetadata(" + values.keys.sorted().joined(separator: ", ") + ")"
    }
}
