import Foundation

extension PersistentStoreCoordinator {
    /// Deletes the objects of a ``BatchDeleteRequest`` in one save, through a private context: delete rules apply
    /// as when a context deletes the objects.
    ///
    /// - Throws: the errors of ``ManagedObjectContext/fetch(_:)-(FetchRequest)`` and ``ManagedObjectContext/save()``
    ///   (`ValidationError/Code/deleteDenied` for a deny rule, ``StoreError/Code/mergeConflict`` when the objects
    ///   changed meanwhile and `mergePolicy` is ``MergePolicy/error``); ``StoreError/Code/objectNotFound`` for an ID
    ///   of no saved object. Nothing is deleted then.
    public func execute(_ request: BatchDeleteRequest, mergePolicy: MergePolicy = .error) throws -> BatchDeleteResult {
        let context = batchContext(mergePolicy: mergePolicy)
        let objects: [ManagedObject]
        if let ids = request.objectIDs {
            objects = try ids.map { try context.existingObject(with: $0) }
        } else if let fetchRequest = request.fetchRequest {
            objects = try context.fetch(fetchRequest)
        } else {
            objects = []
        }
        for object in objects { context.delete(object) }
        try context.save()
        return BatchDeleteResult(resultType: request.resultType, count: objects.count,
                                 objectIDs: request.resultType == .objectIDs ? objects.map(\.objectID) : nil)
    }

    /// Sets the attributes of a ``BatchUpdateRequest`` on every object it matches, in one save, through a private
    /// context: the values are converted and the model's rules checked as when a context saves the objects.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity``; ``StoreError/Code/unsupportedRequest`` for a relationship;
    ///   ``ValidationError`` (``ValidationError/Code/unknownKey`` for a key that is not a stored attribute,
    ///   ``ValidationError/Code/wrongType`` for a value that cannot be converted, the model's rules); the errors of
    ///   an expression's evaluation and of ``ManagedObjectContext/save()``. Nothing is written then.
    public func execute(_ request: BatchUpdateRequest, mergePolicy: MergePolicy = .error) throws -> BatchUpdateResult {
        guard let entity = managedObjectModel.entitiesByName[request.entityName] else {
            throw ModelError(code: .unknownEntity, message: "The model has no entity named '\(request.entityName)'.",
                             context: ErrorContext(entityName: request.entityName))
        }
        // The keys and constant values are checked before any object is read.
        let updates = try request.propertiesToUpdate.sorted { $0.key < $1.key }.map { key, value in
            (attribute: try Self.updatableAttribute(key, of: entity), value: value)
        }
        for (attribute, value) in updates {
            if let value, !(value is ObjectExpression) { _ = try Self.converted(value, for: attribute, of: entity) }
        }
        let context = batchContext(mergePolicy: mergePolicy)
        let fetchRequest = FetchRequest(entityName: entity.name)
        fetchRequest.predicate = request.predicate
        fetchRequest.includesSubentities = request.includesSubentities
        fetchRequest.affectedStores = request.affectedStores
        let objects = try context.fetch(fetchRequest)
        for object in objects {
            for (attribute, value) in updates {
                let resolved: Any? = if let expression = value as? ObjectExpression {
                    try expression.evaluate(with: object)
                } else {
                    value
                }
                object.setValue(try resolved.map { try Self.converted($0, for: attribute, of: entity) },
                                forKey: attribute.name)
            }
        }
        try context.save()
        return BatchUpdateResult(resultType: request.resultType, count: objects.count,
                                 objectIDs: request.resultType == .objectIDs ? objects.map(\.objectID) : nil)
    }

    /// A context of its own for a batch request, without undo.
    private func batchContext(mergePolicy: MergePolicy) -> ManagedObjectContext {
        let context = ManagedObjectContext(coordinator: self)
        context.isUndoRegistrationEnabled = false
        context.mergePolicy = mergePolicy
        return context
    }

    /// The stored attribute a batch update may set.
    private static func updatableAttribute(_ key: String, of entity: EntityDescription) throws -> AttributeDescription {
        switch entity.layout.propertiesByName[key] {
        case let attribute as AttributeDescription where !attribute.isTransient:
            return attribute
        case is RelationshipDescription:
            throw StoreError(code: .unsupportedRequest,
                             message: "Batch updates cannot set relationship '\(key)' of '\(entity.name)'; set it "
                                + "through a context.", context: ErrorContext(entityName: entity.name, key: key))
        default:
            throw entity.notStoredAttributeError(key: key, refusedBy: "batch updates")
        }
    }

    /// A value in its attribute's type, or a wrong-type error.
    private static func converted(_ value: Any, for attribute: AttributeDescription,
                                  of entity: EntityDescription) throws -> any Sendable {
        guard let converted = attribute.coerce(value) else {
            throw entity.wrongTypeError(key: attribute.name, type: attribute.attributeType, objectID: nil)
        }
        return converted
    }
}
