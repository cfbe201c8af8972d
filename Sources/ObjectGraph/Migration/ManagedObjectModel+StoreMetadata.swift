import Foundation

extension ManagedObjectModel {
    /// Whether the entity version hashes of this model equal exactly those a store's metadata records: the same
    /// entities, each with the same hash. Stricter than ``isConfiguration(withName:compatibleWithStoreMetadata:)``,
    /// which lets a store hold fewer entities than the model.
    public func matchesExactly(storeMetadata metadata: StoreMetadata, configurationName: String? = nil) -> Bool {
        guard let stored = metadata.modelVersionHashes else { return false }
        let entities = entities(forConfigurationName: configurationName) ?? entities
        guard entities.count == stored.count else { return false }
        return entities.allSatisfy { entity in stored[entity.name].map(entity.matchesVersionHash) ?? false }
    }

    /// The model that wrote a store, found among several models (for example every version of a bundle).
    ///
    /// Core Data's `mergedModel(from:forStoreMetadata:)`: first a model whose entity version hashes are exactly
    /// those of the metadata (the last such model, so that the newest of equal versions wins); then the merge of
    /// all the models, when it is compatible with the metadata; else `nil`. A store whose metadata has no version
    /// hashes matches no model.
    public static func mergedModel(from models: [ManagedObjectModel], forStoreMetadata metadata: StoreMetadata)
        -> ManagedObjectModel?
    {
        guard metadata.modelVersionHashes != nil else { return nil }
        if let exact = models.last(where: { $0.matchesExactly(storeMetadata: metadata) }) { return exact }
        guard models.count > 1, let merged = try? ManagedObjectModel(byMerging: models),
            merged.matchesExactly(storeMetadata: metadata)
        else { return nil }
        return merged
    }
}
