import Foundation

extension PersistentStoreCoordinator {
    /// A store's groups and partial aggregates (see ``PersistentStore/aggregate(_:)``), restricted to the entity
    /// names the store holds; `nil` when the store leaves the evaluation to memory.
    func aggregate(_ request: StoreAggregateRequest, on target: FetchTarget) throws -> [StoreAggregateRow]? {
        try performReading {
            var request = request
            request.entityNames = target.entityNames
            return try target.store.serializingReads { try target.store.aggregate(request) }
        }
    }
}
