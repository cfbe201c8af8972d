import Foundation

/// How a ``PersistentContainer`` adds one store (Core Data's `NSPersistentStoreDescription`).
///
/// ```swift
/// let description = PersistentStoreDescription(url: folder.appendingPathComponent("Notes.sqlite"))
/// description.setOption(true, forKey: .persistentHistoryTracking)
/// container.persistentStoreDescriptions = [description]
/// ```
// Configured by its owner, then only read by `loadPersistentStores`.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    /// The store's file; `nil` for an in-memory store.
    public var url: URL?
    /// The store type; `.sqlite` by default, as in Core Data.
    public var type: PersistentStoreType = .sqlite
    /// The model configuration whose entities the store holds; `nil` for every entity.
    public var configuration: String?
    /// Whether the store opens read-only (the `.readOnly` option).
    public var isReadOnly: Bool {
        get { options.flag(.readOnly) }
        set { options[.readOnly] = newValue }
    }
    /// Whether a store written with an earlier model is migrated when it is loaded; `true` by default, as in
    /// Core Data (the `.migratePersistentStoresAutomatically` option).
    public var shouldMigrateStoreAutomatically: Bool {
        get { options.flag(.migratePersistentStoresAutomatically) }
        set { options[.migratePersistentStoresAutomatically] = newValue }
    }
    /// Whether the mapping of a lightweight migration is inferred; `true` by default, as in Core Data (the
    /// `.inferMappingModelAutomatically` option).
    public var shouldInferMappingModelAutomatically: Bool {
        get { options.flag(.inferMappingModelAutomatically) }
        set { options[.inferMappingModelAutomatically] = newValue }
    }
    /// The options the store is added with.
    public var options: PersistentStoreOptions = [
        .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
    ]

    /// A description of a store at a URL (of type `.sqlite` unless changed).
    public init(url: URL? = nil) {
        self.url = url
    }

    /// Sets one option (`nil` removes it).
    public func setOption(_ value: (any Sendable)?, forKey key: PersistentStoreOptionKey) {
        options[key] = value
    }

    public var description: String {
        "PersistentStoreDescription(\(type), \(url?.path ?? "no URL"), configuration: \(configuration ?? "default"))"
    }
}
