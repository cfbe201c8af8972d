import Foundation

extension ManagedObject {
    /// Creates an object of the entity whose class is this class, and inserts it into `context` (Core Data's
    /// `init(context:)`): `let item = Item(context: context)` with a generated or registered class.
    ///
    /// The entity is the one of the context's model whose instances get this class (see
    /// ``ManagedObjectClassRegistry/objectClass(for:)``); a subentity that only inherits the class does not count.
    /// - Precondition: exactly one entity of the model has this class (register the class, or give the entity its
    ///   class name); otherwise use ``init(entity:insertInto:)``.
    public convenience init(context: ManagedObjectContext) {
        self.init(entity: Self.uniqueEntity(in: context.managedObjectModel), insertInto: context)
    }

    /// The entity of a model whose instances get this class, not counting subentities that inherit it.
    static func uniqueEntity(in model: ManagedObjectModel) -> EntityDescription {
        let own = ObjectIdentifier(self)
        let claiming = model.entities.filter { entity in
            guard ObjectIdentifier(ManagedObjectClassRegistry.objectClass(for: entity)) == own else { return false }
            // A subentity without a class of its own gets its parent's: the parent is the one that claims it.
            guard let parent = entity.superentity else { return true }
            return ObjectIdentifier(ManagedObjectClassRegistry.objectClass(for: parent)) != own
        }
        guard claiming.count == 1 else {
            let names = claiming.map(\.name).sorted().joined(separator: ", ")
            preconditionFailure(
                claiming.isEmpty
                    ? "no entity of the model has class \(self): register it with ManagedObjectClassRegistry, or "
                        + "use init(entity:insertInto:)"
                    : "entities \(names) all have class \(self): use init(entity:insertInto:) to choose one")
        }
        return claiming[0]
    }
}

extension EntityDescription {
    /// The entity named `entityName` in the model of `context`'s coordinator, or `nil` (Core Data's
    /// `entity(forEntityName:in:)`).
    public static func entity(forEntityName entityName: String, in context: ManagedObjectContext) -> EntityDescription?
    {
        context.managedObjectModel.entitiesByName[entityName]
    }

    /// A new object of the entity named `entityName`, inserted into `context` (Core Data's
    /// `insertNewObject(forEntityName:into:)`; the same as ``ManagedObjectContext/insertNewObject(forEntityName:)``).
    ///
    /// - Precondition: the model has such an entity, and it is not abstract.
    @discardableResult
    public static func insertNewObject(forEntityName entityName: String, into context: ManagedObjectContext)
        -> ManagedObject
    {
        context.insertNewObject(forEntityName: entityName)
    }
}

extension ManagedObject {
    /// Core Data's notice before a custom accessor reads a primitive value: fires the object's fault, so that
    /// ``primitiveValue(forKey:)`` reads loaded values.
    public func willAccessValue(forKey key: String?) {
        if storage == .fault { fireFault() }
    }

    /// Core Data's notice after a custom accessor read a primitive value; nothing is left to do.
    public func didAccessValue(forKey key: String?) {}

    /// Core Data's notice before a custom setter changes a value with ``setPrimitiveValue(_:forKey:)``: fires the
    /// fault and keeps the value the property holds now, for undo. Pair it with ``didChangeValue(forKey:)``.
    ///
    /// - Precondition: the entity has a property named `key`.
    public func willChangeValue(forKey key: String) {
        let index = slot(for: key)
        if storage == .fault { fireFault() }
        guard let context = managedObjectContext, context.isRecordingUndo else { return }
        // A to-many's storage may change in place before didChangeValue: keep the members it has now.
        let value = slotValue(index)
        context.valuesBeforeChange[ObjectIdentifier(self), default: [:]][index] =
            (value as? ToManyStorage).map { $0.copy() } ?? value
    }

    /// Core Data's notice after a custom setter changed a value: the change is recorded for undo (with the value
    /// ``willChangeValue(forKey:)`` kept) and reported in the context's next objects-did-change event, as a change
    /// made with ``setValue(_:forKey:)`` is. Inverse relationships are not maintained: set them too, or use
    /// `setValue`.
    ///
    /// - Precondition: the entity has a property named `key`.
    public func didChangeValue(forKey key: String) {
        let index = slot(for: key)
        guard let context = managedObjectContext else { return }
        let id = ObjectIdentifier(self)
        if let before = context.valuesBeforeChange[id]?.removeValue(forKey: index) {
            if context.valuesBeforeChange[id]?.isEmpty == true { context.valuesBeforeChange[id] = nil }
            if context.isRecordingUndo { context.recordUndo(.set(self, index, other: before)) }
        }
        context.noteChanged(self, notify: true)
    }
}

extension ManagedObject {
    /// The IDs of a relationship's destinations, in order for an ordered one (Core Data's
    /// `objectIDs(forRelationshipNamed:)`): the destinations are not loaded, and those not yet made are not made.
    /// The object itself is loaded first if it is a fault.
    ///
    /// - Precondition: the entity has a relationship named `name`.
    public func objectIDs(forRelationshipNamed name: String) -> [ManagedObjectID] {
        guard let relationship = entity.relationshipsByName[name] else {
            preconditionFailure("entity '\(entity.name)' has no relationship named '\(name)'")
        }
        let value = slotValue(slot(for: relationship.name))
        if let storage = value as? ToManyStorage { return storage.objectIDs }
        return (value as? ManagedObject).map { [$0.objectID] } ?? []
    }
}

extension ManagedObject {
    /// Whether a persistent property (not a transient one) changed since the object was read or last saved (Core
    /// Data's `hasPersistentChangedValues`); always true for an inserted object, which is saved whole.
    public var hasPersistentChangedValues: Bool {
        if isInsertedFlag { return true }
        let properties = slotLayout.properties
        return changedSlots().contains { !properties[$0].isTransient }
    }
}
