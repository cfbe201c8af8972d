import Foundation
import Synchronization

/// The `ManagedObject` subclasses known by class name, so that an entity's ``EntityDescription/managedObjectClassName``
/// selects the class its instances get.
///
/// ```swift
/// ManagedObjectClassRegistry.register(Run.self, forClassName: "Run")
/// ```
///
/// A module-qualified class name (`MyApp.Run`, what Xcode writes as an entity's class when its module is set) needs
/// no registration: the class is found by that name once its module is linked into the program, as Core Data finds
/// it with `NSClassFromString`. A registration under the name wins over the lookup.
public enum ManagedObjectClassRegistry {
    private static let registry = Registry()
    private static let registrations = Atomic<Int>(0)

    /// Registers a subclass under a class name (usually the entity's `representedClassName`).
    public static func register(_ objectClass: ManagedObject.Type, forClassName name: String) {
        registry.set(objectClass, for: name)
        registrations.add(1, ordering: .releasing)
    }

    /// Registers a subclass for an entity that names no class of its own (whose
    /// ``EntityDescription/managedObjectClassName`` is the default `ManagedObject`): what `ObjectGraphCodegen`
    /// registers for an entity of the model file without a class name.
    public static func register(_ objectClass: ManagedObject.Type, forEntityName name: String) {
        registry.set(objectClass, forEntity: name)
        registrations.add(1, ordering: .releasing)
    }

    /// How many registrations there have been: a class looked up for an entity holds while this is unchanged.
    static var generation: Int { registrations.load(ordering: .acquiring) }

    /// The class registered under a name, or `ManagedObject` itself.
    public static func objectClass(forClassName name: String) -> ManagedObject.Type {
        registry.resolve(name) ?? ManagedObject.self
    }

    /// The class an entity's instances get: its own registered class (by class name, or by entity name when it
    /// names no class), else its parent's, else `ManagedObject`.
    public static func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        var current: EntityDescription? = entity
        while let next = current {
            let className = next.managedObjectClassName
            if className == "ManagedObject" {
                if let found = registry.entityClass(next.name) { return found }
            } else if let found = registry.resolve(className) {
                return found
            }
            current = next.superentity
        }
        return ManagedObject.self
    }

    private final class Registry: @unchecked Sendable {  // guarded by lock
        private let lock = Lock()
        private var classes: [String: ManagedObject.Type] = [:]
        private var entityClasses: [String: ManagedObject.Type] = [:]
        /// Names that were looked up as linked classes and are none.
        private var unlinked: Set<String> = []

        func set(_ objectClass: ManagedObject.Type, for name: String) {
            lock.lock()
            defer { lock.unlock() }
            classes[name] = objectClass
        }

        func set(_ objectClass: ManagedObject.Type, forEntity name: String) {
            lock.lock()
            defer { lock.unlock() }
            entityClasses[name] = objectClass
        }

        func entityClass(_ name: String) -> ManagedObject.Type? {
            lock.lock()
            defer { lock.unlock() }
            return entityClasses[name]
        }

        /// The class registered under a name, else the `ManagedObject` subclass of that module-qualified name
        /// linked into the program (remembered either way).
        func resolve(_ name: String) -> ManagedObject.Type? {
            lock.lock()
            if let known = classes[name] {
                lock.unlock()
                return known
            }
            let isQualified = name.contains(".") && !name.hasPrefix(".")
            guard isQualified, !unlinked.contains(name) else {
                lock.unlock()
                return nil
            }
            lock.unlock()
            // Outside the lock: the lookup may load type metadata, which must not wait on this registry.
            let linked = NSClassFromString(name) as? ManagedObject.Type
            lock.lock()
            defer { lock.unlock() }
            if let registered = classes[name] { return registered }
            if let linked { classes[name] = linked } else { unlinked.insert(name) }
            return linked
        }
    }
}
