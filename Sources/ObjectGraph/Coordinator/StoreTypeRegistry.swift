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
        return classes[type]
    }

    var registeredTypes: [PersistentStoreType] {
        lock.lock()
        defer { lock.unlock() }
        return classes.keys.sorted { $0.rawValue < $1.rawValue }
    }
}
