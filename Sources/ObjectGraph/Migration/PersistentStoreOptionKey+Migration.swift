extension PersistentStoreOptionKey {
    /// `[ManagedObjectModel]`: the earlier model versions automatic migration may find the store's model among
    /// (Core Data searches the app's bundles; here the caller lists them, for example every version of a bundle
    /// read with `ManagedObjectModel.versions(in:)`).
    public static let migrationSourceModels: PersistentStoreOptionKey = "ObjectGraphMigrationSourceModelsOption"
    /// `[MappingModel]`: mapping models automatic migration may use; the first that fits the store's model and the
    /// coordinator's is used, else one is inferred when `.inferMappingModelAutomatically` is set.
    public static let migrationMappingModels: PersistentStoreOptionKey = "ObjectGraphMigrationMappingModelsOption"
    /// ``StagedMigrationManager``: migrate a store written with an earlier model through its stages when it is
    /// added (Core Data's `NSPersistentStoreStagedMigrationManagerOptionKey`).
    public static let stagedMigrationManager: PersistentStoreOptionKey =
        "NSPersistentStoreStagedMigrationManagerOptionKey"
}
