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
