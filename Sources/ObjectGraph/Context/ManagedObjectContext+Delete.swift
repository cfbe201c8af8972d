import Foundation

extension ManagedObjectContext {
    /// The objects still deleted while inserted (a deletion undone since leaves them out); empties the list.
    func takeDeletedWhileInserted() -> [ManagedObject] {
        let objects = deletedWhileInserted.objects.filter {
            $0.isInsertedFlag && $0.isDeletedFlag && $0.managedObjectContext === self
        }
        deletedWhileInserted.removeAll()
        return objects
    }

    /// Deletes an object when the context is next saved, applying its relationships' delete rules now:
    /// nullify removes it from its destinations' inverses, cascade deletes the destinations, deny makes the save fail
    /// while destinations remain, no-action leaves the graph to the caller.
    ///
    /// Deleting an object that was inserted and never saved simply removes it.
    public func delete(_ object: ManagedObject) {
        checkStores()
        guard object.managedObjectContext === self, !object.isDeletedFlag else { return }
        fulfillFault(of: object)
        object.prepareForDeletion()
        object.isDeletedFlag = true
        changeGeneration &+= 1
        let wasInserted = object.isInsertedFlag
        if wasInserted {
            inserted.remove(object)
            deletedWhileInserted.add(object)
            pending.deleted.add(object)
        } else {
            deleted.add(object)
            pending.deleted.add(object)
        }
        recordUndo(.delete(object, wasInserted: wasInserted))
        for case let relationship as RelationshipDescription in object.entity.allProperties {
            let destinations = object.relatedObjects(relationship)
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = relationship.inverseRelationship else { continue }
                for destination in destinations where !destination.isDeletedFlag {
                    destination.detachInverse(inverse, from: object)
                }
            case .cascade:
                for destination in destinations { delete(destination) }
            case .deny, .noAction:
                continue
            }
        }
    }

    /// Reverses a deletion (for undo): the object is live again.
    func undelete(_ object: ManagedObject) {
        guard object.isDeletedFlag else { return }
        object.isDeletedFlag = false
        deleted.remove(object)
        // A deletion reported already is reversed by reporting the object inserted again.
        let reported = !pending.deleted.contains(object)
        pending.deleted.remove(object)
        if object.isInsertedFlag {
            inserted.add(object)
            pending.inserted.append(object)
        } else if reported {
            pending.appeared.append(object)
        }
    }
}
