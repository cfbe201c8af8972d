import Foundation

extension PersistentStoreCoordinator {
    /// Whether the options ask the coordinator to migrate a store written with another model, and say from which:
    /// a staged migration manager, or automatic migration with source models to find the store's among. Without
    /// them a changed model stays an ``StoreError/Code/incompatibleModel`` error (the SQLite store migrates
    /// lightweight changes in place itself).
    static func asksForMigration(_ options: PersistentStoreOptions) -> Bool {
        if options[.stagedMigrationManager] is StagedMigrationManager { return true }
        guard options.flag(.migratePersistentStoresAutomatically),
            let models = options[.migrationSourceModels] as? [ManagedObjectModel]
        else { return false }
        return !models.isEmpty
    }

    /// Whether a store just read was written with another model and the options ask to migrate it.
    func needsMigration(_ store: PersistentStore, options: PersistentStoreOptions) -> Bool {
        !options.flag(.ignoresModelVersion) && Self.asksForMigration(options)
            && !managedObjectModel.isConfiguration(
                withName: store.configurationName, compatibleWithStoreMetadata: store.metadata)
    }

    /// Migrates the file of a store written with another model to the coordinator's model, in place: through the
    /// staged migration manager of the options, else from the source model found among
    /// `.migrationSourceModels` with a mapping from `.migrationMappingModels` or an inferred one.
    ///
    /// - Throws: ``MigrationError`` (``MigrationError/Code/missingSourceModel``,
    ///   ``MigrationError/Code/missingMappingModel`` and the migration's own); the file is unchanged then.
    func migrateStoreFile(
        type: PersistentStoreType, at url: URL, options: PersistentStoreOptions,
        metadata: StoreMetadata
    ) throws {
        if let staged = options[.stagedMigrationManager] as? StagedMigrationManager {
            try staged.migrateStore(
                at: url, type: type, options: options, metadata: metadata,
                to: managedObjectModel)
            return
        }
        let candidates = options[.migrationSourceModels] as? [ManagedObjectModel] ?? []
        guard let sourceModel = ManagedObjectModel.mergedModel(from: candidates, forStoreMetadata: metadata) else {
            throw MigrationError(
                code: .missingSourceModel,
                message: "None of the \(candidates.count) model(s) in .migrationSourceModels wrote "
                    + "the store at \(url.path); list the model version that did.",
                context: ErrorContext(storeURL: url))
        }
        let mappings = options[.migrationMappingModels] as? [MappingModel] ?? []
        var mapping = mappings.first {
            (try? $0.validate(sourceModel: sourceModel, destinationModel: managedObjectModel)) != nil
        }
        if mapping == nil, options.flag(.inferMappingModelAutomatically) {
            mapping = try MappingModel.inferredMappingModel(
                forSourceModel: sourceModel,
                destinationModel: managedObjectModel)
        }
        guard let mapping else {
            throw MigrationError(
                code: .missingMappingModel,
                message: "No mapping model leads from the store's model to the coordinator's; pass "
                    + "one in .migrationMappingModels or set .inferMappingModelAutomatically.",
                context: ErrorContext(storeURL: url))
        }
        try Self.migrateInPlace(
            at: url, type: type, options: options, sourceModel: sourceModel,
            destinationModel: managedObjectModel, mapping: mapping)
    }

    /// Migrates a store file into a temporary file beside it, then puts that file in its place.
    static func migrateInPlace(
        at url: URL, type: PersistentStoreType, options: PersistentStoreOptions,
        sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel,
        mapping: MappingModel?
    ) throws {
        var plain = options
        for key in [
            PersistentStoreOptionKey.migratePersistentStoresAutomatically, .inferMappingModelAutomatically,
            .stagedMigrationManager, .migrationSourceModels, .migrationMappingModels, .readOnly,
        ] {
            plain[key] = nil
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).migrating-\(UUID().uuidString)")
        let manager = MigrationManager(sourceModel: sourceModel, destinationModel: destinationModel)
        try manager.migrateStore(
            from: url, type: type, options: plain, mapping: mapping, to: temporary, type: type,
            options: plain)
        // The migrated file holds everything; the old one's journal companions go with it.
        for suffix in Self.journalSuffixes { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            MigrationManager.removeStoreFiles(at: temporary)
            throw StoreError(
                code: .io,
                message: "Could not put the migrated store in place of \(url.path) (errno \(code)).",
                context: ErrorContext(storeURL: url))
        }
    }
}
