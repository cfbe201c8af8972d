import Foundation

/// The object IDs of one batch of a fetch with ``FetchRequest/fetchBatchSize``: firing any of its faults reads the
/// values of all of them, with one request to each store.
final class FaultBatch {
    let objectIDs: [ManagedObjectID]

    init(objectIDs: [ManagedObjectID]) {
        self.objectIDs = objectIDs
    }
}

extension ManagedObjectContext {
    /// Splits the faults among fetched objects, in result order, into batches of `size`.
    ///
    /// Objects that already have their values (registered before, or faults keeping the values a store returned
    /// anyway) take no part; a fault from an earlier batched fetch moves to its batch in this one.
    func groupFaults(_ objects: [ManagedObject], intoBatchesOf size: Int) {
        var members: [ManagedObject] = []
        members.reserveCapacity(min(size, objects.count))
        func close() {
            let batch = FaultBatch(objectIDs: members.map(\.objectID))
            for object in members { object.faultBatch = batch }
            members.removeAll(keepingCapacity: true)
        }
        for object in objects where object.storage == .fault && object.faultValues == nil {
            members.append(object)
            if members.count == size { close() }
        }
        if !members.isEmpty { close() }
    }

    /// Fills every fault of a batch that still belongs to it; returns false (and leaves the batch) when the stores
    /// could not be read, so that the caller falls back to loading its one object.
    ///
    /// Objects whose records are gone become invalid, as a single fault does when it fires.
    func fulfillFaults(of batch: FaultBatch) -> Bool {
        let objects = batch.objectIDs.compactMap { id -> ManagedObject? in
            guard let object = registered[id], object.storage == .fault, object.faultBatch === batch else { return nil }
            return object
        }
        guard var records = try? persistentStoreCoordinator.records(for: objects.map(\.objectID)) else {
            for object in objects { object.faultBatch = nil }
            return false
        }
        for (index, object) in objects.enumerated() {
            if let record = records[index].take() {
                object.apply(record, in: self)
            } else {
                object.faultBatch = nil
                object.storage = .invalid
            }
        }
        for object in objects where object.storage == .loaded { object.awakeFromFetch() }
        return true
    }
}
