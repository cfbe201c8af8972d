import Foundation

/// The store classes known by type name: the built-in in-memory store plus the types modules and applications
/// register.
final class StoreTypeRegistry: @unchecked Sendable {  // guarded by lock
    static let shared = StoreTypeRegistry()

    private let lock = Lock()
    private var classes: [PersistentStoreType: PersistentStore.Type] = [.inMemory: InMemoryStore.self, .binary: BinaryStore.self]

    func register(_ storeClass: PersistentStore.Type, for type: PersistentStoreType) {
        lock.lock()
        defer { lock.unlock() }
        classes[type] = storeClass
    }

    func storeClass(for type: PersistentStoreType) -> PersistentStore.Type? {
        lock.lock()
        defer { lock.unlock() }
        if let known = classes[type] { return known }
        guard let linked = Self.linkedStoreClass(for: type) else { return nil }
        classes[type] = linked
        return linked
    }

    /// The package's own store types, found by class name when their module is linked into the program: naming
    /// `.sqlite` or `.xml` is enough, with no `register()` call (which still works, and wins).
    private static let linkedClassNames: [PersistentStoreType: String] = [
        .sqlite: "ObjectGraphSQLite.SQLiteStore", .xml: "ObjectGraphXML.XMLStore",
    ]

    /// Foundation's `NSClassFromString` finds a Swift class by its module-qualified name, and only when the module
    /// is linked into the program, which is what makes the lookup safe: an unlinked module gives `nil`, and the
    /// caller reports the type as unknown.
    static func linkedStoreClass(for type: PersistentStoreType) -> PersistentStore.Type? {
        guard let name = linkedClassNames[type] else { return nil }
        return NSClassFromString(name) as? PersistentStore.Type
    }

    var registeredTypes: [PersistentStoreType] {
        for type in Self.linkedClassNames.keys { _ = storeClass(for: type) }
        lock.lock()
        defer { lock.unlock() }
        return classes.keys.sorted { $0.rawValue < $1.rawValue }
    }
}
