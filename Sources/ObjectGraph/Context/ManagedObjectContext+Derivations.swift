extension ManagedObjectContext {
    /// Recomputes derived attributes before a save validates its changes (see ``DerivedAttributeDescription``):
    /// those of inserted and updated objects, and of the objects a changed object feeds.
    func recomputeDerivedAttributes(updated: [ManagedObject]) {
        guard let derivations = persistentStoreCoordinator.managedObjectModel.derivations else { return }
        derivations.recompute(changed: inserted.objects + updated + deleted.objects)
    }
}

extension ManagedObject {
    /// Writes a derived attribute's computed value: kept for the save, without undo registration or change
    /// notification, like ``setPrimitiveValue(_:forKey:)``.
    func setDerivedValue(_ value: Any?, slot index: Int) {
        captureSnapshot()
        slots[index] = value
        touch(index)
        managedObjectContext?.noteChanged(self, notify: false)
    }
}
