import Foundation

/// One stage of a staged migration (Core Data's `NSMigrationStage`).
public enum MigrationStage: Sendable {
    /// Lightweight migrations through model versions in order, each to the next with an inferred mapping (Core
    /// Data's `NSLightweightMigrationStage`).
    case lightweight([ManagedObjectModel])
    /// A migration from one version to the next with handlers around it (Core Data's `NSCustomMigrationStage`):
    /// `willMigrate` gets a context on the store still at `from`, `didMigrate` one on the store now at `to`; what
    /// they change is saved. The migration between them is inferred.
    case custom(
        from: ManagedObjectModel, to: ManagedObjectModel,
        willMigrate: (@Sendable (ManagedObjectContext) throws -> Void)?,
        didMigrate: (@Sendable (ManagedObjectContext) throws -> Void)?)
}

/// Migrates a store through a chain of model versions (Core Data's `NSStagedMigrationManager`).
///
/// Pass it in the options of `addPersistentStore` under `.stagedMigrationManager`: a store written with any version
/// of the chain is migrated, stage after stage, to the last version, which must be the coordinator's model.
///
/// ```swift
/// let versions = try ManagedObjectModel.versions(in: bundleURL).map(\.model)
/// let manager = StagedMigrationManager([
///     .lightweight([versions[0], versions[1]]),
///     .custom(from: versions[1], to: versions[2], willMigrate: nil, didMigrate: { context in … }),
/// ])
/// try coordinator.addPersistentStore(type: .sqlite, at: url, options: [.stagedMigrationManager: manager])
/// ```
public final class StagedMigrationManager: Sendable {
    /// The stages, in order.
    public let stages: [MigrationStage]

    /// Creates a manager with stages.
    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }

    private struct Step {
        var from: ManagedObjectModel
        var to: ManagedObjectModel
        var willMigrate: (@Sendable (ManagedObjectContext) throws -> Void)?
        var didMigrate: (@Sendable (ManagedObjectContext) throws -> Void)?
    }

    /// The chain's steps, each from one version to the next.
    private var steps: [Step] {
        var steps: [Step] = []
        for stage in stages {
            switch stage {
            case .lightweight(let models):
                for (from, to) in zip(models, models.dropFirst()) { steps.append(Step(from: from, to: to)) }
            case .custom(let from, let to, let willMigrate, let didMigrate):
                steps.append(Step(from: from, to: to, willMigrate: willMigrate, didMigrate: didMigrate))
            }
        }
        return steps
    }

    /// Migrates the store at `url` from the version its metadata matches to the end of the chain.
    ///
    /// - Throws: ``MigrationError/Code/missingSourceModel`` when no version of the chain wrote the store,
    ///   ``MigrationError/Code/invalidMappingModel`` when the chain does not end at `model`, and the errors of each
    ///   step. A failed step leaves the store as the previous step left it.
    func migrateStore(
        at url: URL, type: PersistentStoreType, options: PersistentStoreOptions,
        metadata: StoreMetadata, to model: ManagedObjectModel
    ) throws {
        let steps = steps
        guard let last = steps.last?.to, last.entityVersionHashesByName == model.entityVersionHashesByName else {
            throw MigrationError(
                code: .invalidMappingModel,
                message: "The staged migration's last version is not the coordinator's model; end "
                    + "the stages with it.",
                context: ErrorContext(storeURL: url))
        }
        let matches = { (candidate: ManagedObjectModel) in candidate.matchesExactly(storeMetadata: metadata) }
        guard let start = steps.firstIndex(where: { matches($0.from) }) ?? steps.lastIndex(where: { matches($0.to) })
        else {
            throw MigrationError(
                code: .missingSourceModel,
                message: "No version of the staged migration wrote the store at \(url.path).",
                context: ErrorContext(storeURL: url))
        }
        for step in steps[start...] where !matches(step.to) || step.willMigrate != nil || step.didMigrate != nil {
            if let willMigrate = step.willMigrate {
                try Self.run(willMigrate, on: url, type: type, options: options, model: step.from)
            }
            if step.from.entityVersionHashesByName != step.to.entityVersionHashesByName {
                try PersistentStoreCoordinator.migrateInPlace(
                    at: url, type: type, options: options,
                    sourceModel: step.from, destinationModel: step.to,
                    mapping: nil)
            }
            if let didMigrate = step.didMigrate {
                try Self.run(didMigrate, on: url, type: type, options: options, model: step.to)
            }
        }
    }

    /// Opens the store with a model, hands a context to a handler, saves what it changed.
    private static func run(
        _ handler: (ManagedObjectContext) throws -> Void, on url: URL, type: PersistentStoreType,
        options: PersistentStoreOptions, model: ManagedObjectModel
    ) throws {
        var plain = options
        for key in [
            PersistentStoreOptionKey.migratePersistentStoresAutomatically, .inferMappingModelAutomatically,
            .stagedMigrationManager, .readOnly,
        ] {
            plain[key] = nil
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: plain)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        try handler(context)
        if context.hasChanges { try context.save() }
    }
}
