import Foundation
import Synchronization

/// The `ManagedObject` subclasses known by class name, so that an entity's ``EntityDescription/managedObjectClassName``
/// selects the class its instances get.
///
/// ```swift
/// ManagedObjectClassRegistry.register(Run.self, forClassName: "Run")
/// ```
public enum ManagedObjectClassRegistry {
    private static let registry = Registry()
    private static let registrations = Atomic<Int>(0)

    /// Registers a subclass under a class name (usually the entity's `representedClassName`).
    public static func register(_ objectClass: ManagedObject.Type, forClassName name: String) {
        registry.set(objectClass, for: name)
        registrations.add(1, ordering: .releasing)
    }

    /// How many registrations there have been: a class looked up for an entity holds while this is unchanged.
    static var generation: Int { registrations.load(ordering: .acquiring) }

    /// The class registered under a name, or `ManagedObject` itself.
    public static func objectClass(forClassName name: String) -> ManagedObject.Type {
        registry.get(name) ?? ManagedObject.self
    }

    /// The class an entity's instances get: its own registered class, else its parent's, else `ManagedObject`.
    public static func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        var current: EntityDescription? = entity
        while let next = current {
            if let found = registry.get(next.managedObjectClassName) { return found }
            current = next.superentity
        }
        return ManagedObject.self
    }

    private final class Registry: @unchecked Sendable {  // guarded by lock
        private let lock = Lock()
        private var classes: [String: ManagedObject.Type] = [:]

        func set(_ objectClass: ManagedObject.Type, for name: String) {
            lock.lock()
            defer { lock.unlock() }
            classes[name] = objectClass
        }

        func get(_ name: String) -> ManagedObject.Type? {
            lock.lock()
            defer { lock.unlock() }
            return classes[name]
        }
    }
}
