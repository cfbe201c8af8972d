import Foundation

/// Migrates a store from one model to another with a mapping model (Core Data's `NSMigrationManager`).
///
/// The migration runs in Core Data's three stages, each over every entity mapping in order: the destination
/// objects are created from the source objects (attributes), then their relationships are set (every destination
/// object exists by then), then they are validated and saved into the destination store. The source store is
/// opened read-only and never changed; a failed migration removes the destination file it was writing.
///
/// A manager and its contexts belong to the thread that calls ``migrateStore(from:type:options:mapping:to:type:options:)``.
public final class MigrationManager {
    /// The model the source store was written with.
    public let sourceModel: ManagedObjectModel
    /// The model of the destination store.
    public let destinationModel: ManagedObjectModel
    /// The mapping of the migration under way or last run.
    public private(set) var mappingModel = MappingModel()
    /// The context of the source store during a migration.
    public private(set) var sourceContext: ManagedObjectContext
    /// The context the destination objects are inserted into during a migration.
    public private(set) var destinationContext: ManagedObjectContext
    /// The entity mapping being migrated.
    public private(set) var currentEntityMapping: EntityMapping?
    /// How far the migration is, from 0 to 1.
    public private(set) var migrationProgress: Float = 0
    /// Called on the migrating thread whenever ``migrationProgress`` grows by a percent or more, and at the end.
    public var progressHandler: ((Float) -> Void)?
    /// Free-form information for policies.
    public var userInfo: [String: Any] = [:]

    var associations: [String: Associations] = [:]
    var mappingsBySourceEntity: [String: [EntityMapping]] = [:]
    private var cancellation: (any Error)?
    private var totalSteps = 1
    private var doneSteps = 0
    private var reportedProgress: Float = 0

    /// Creates a manager for a pair of models (both are frozen by the migration).
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        sourceContext = ManagedObjectContext(coordinator: PersistentStoreCoordinator(managedObjectModel: sourceModel))
        destinationContext = ManagedObjectContext(
            coordinator: PersistentStoreCoordinator(managedObjectModel: destinationModel))
    }

    /// The selector of the manager's function that maps source objects through a named entity mapping.
    public static let destinationInstancesForEntityMapping =
        "destinationInstancesForEntityMappingNamed:sourceInstances:"
    /// The selector of the manager's function that maps the objects of a source relationship, each through the
    /// mapping of its own entity.
    public static let destinationInstancesForSourceRelationship =
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:"
    /// The selector of the manager's function, in source expressions, that selects source objects by predicate.
    public static let fetchRequestForSourceEntity = "fetchRequestForSourceEntityNamed:predicateString:"

    // MARK: Migrating

    /// Migrates the store at `sourceURL` into a new store at `destinationURL`.
    ///
    /// - Parameters:
    ///   - sourceURL: the store to migrate; opened read-only and left as it is.
    ///   - sourceType: its store type.
    ///   - sourceOptions: options to open it with (`.readOnly` is added).
    ///   - mapping: the mapping model; `nil` infers one (``MappingModel/inferredMappingModel(forSourceModel:destinationModel:)``).
    ///   - destinationURL: where the migrated store is written; nothing may exist there yet.
    ///   - destinationType: its store type, which may differ from the source's.
    ///   - destinationOptions: options to create it with.
    /// - Throws: ``MigrationError`` with ``MigrationError/Code/sourceNotFound``,
    ///   ``MigrationError/Code/missingSourceModel`` (the source model did not write the store),
    ///   ``MigrationError/Code/invalidMappingModel``, ``MigrationError/Code/policyNotFound``,
    ///   ``MigrationError/Code/expressionFailed``, ``MigrationError/Code/validationFailed`` or
    ///   ``MigrationError/Code/cancelled``; ``StoreError/Code/storeAlreadyAdded`` when the destination exists; the
    ///   stores' own errors. The source is unchanged and the destination absent after any failure.
    public func migrateStore(
        from sourceURL: URL, type sourceType: PersistentStoreType,
        options sourceOptions: PersistentStoreOptions = [:], mapping: MappingModel?,
        to destinationURL: URL, type destinationType: PersistentStoreType,
        options destinationOptions: PersistentStoreOptions = [:]
    ) throws {
        guard FileManager.default.fileExists(atPath: sourceURL.path) else {
            throw MigrationError(
                code: .sourceNotFound, message: "There is no store to migrate at \(sourceURL.path).",
                context: ErrorContext(storeURL: sourceURL))
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: destinationURL.path))?[.size] as? NSNumber,
            size.intValue > 0
        {
            throw StoreError(
                code: .storeAlreadyAdded,
                message: "The migration destination \(destinationURL.path) exists; choose a new file.",
                context: ErrorContext(storeURL: destinationURL))
        }
        let mapping =
            try mapping
            ?? MappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        try mapping.validate(sourceModel: sourceModel, destinationModel: destinationModel)
        mappingModel = mapping
        reset()

        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        var readOptions = sourceOptions
        readOptions[.readOnly] = true
        readOptions[.migratePersistentStoresAutomatically] = nil
        readOptions[.inferMappingModelAutomatically] = nil
        let sourceStore: PersistentStore
        do {
            sourceStore = try sourceCoordinator.addPersistentStore(
                type: sourceType, at: sourceURL, options: readOptions)
        } catch let error as StoreError where error.code == .incompatibleModel {
            throw MigrationError(
                code: .missingSourceModel,
                message: "The store at \(sourceURL.path) was not written with the source model; "
                    + "pass the model that wrote it.",
                context: ErrorContext(storeURL: sourceURL), cause: error)
        }
        defer { try? sourceCoordinator.remove(sourceStore) }
        sourceContext = ManagedObjectContext(coordinator: sourceCoordinator)

        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        var writeOptions = destinationOptions
        writeOptions[.readOnly] = nil
        let destinationStore = try destinationCoordinator.addPersistentStore(
            type: destinationType, at: destinationURL, options: writeOptions)
        destinationContext = ManagedObjectContext(coordinator: destinationCoordinator)
        do {
            try runStages()
            try destinationCoordinator.remove(destinationStore)
        } catch {
            try? destinationCoordinator.remove(destinationStore)
            Self.removeStoreFiles(at: destinationURL)
            sourceContext.reset()
            destinationContext.reset()
            throw error
        }
        sourceContext.reset()
        destinationContext.reset()
        report(1)
    }

    /// Stops the migration at its next step with an error; ``migrateStore(from:type:options:mapping:to:type:options:)``
    /// then throws ``MigrationError/Code/cancelled`` with `error` as its cause.
    public func cancelMigration(error: any Error) {
        cancellation = error
    }

    // MARK: Associations

    /// Records that a destination object was made from a source object by a mapping, so that relationships
    /// (and ``destinationInstances(forEntityMappingNamed:sourceInstances:)``) find it.
    public func associate(
        sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject,
        for mapping: EntityMapping
    ) {
        associations[mapping.name, default: Associations()].add(source: source, destination: destination)
    }

    /// The destination objects a mapping made from source objects, in the order of the sources.
    public func destinationInstances(forEntityMappingNamed name: String, sourceInstances: [ManagedObject])
        -> [ManagedObject]
    {
        guard let table = associations[name] else { return [] }
        return sourceInstances.flatMap { table.destinations(of: $0) }
    }

    /// The source objects a mapping made destination objects from.
    public func sourceInstances(forEntityMappingNamed name: String, destinationInstances: [ManagedObject])
        -> [ManagedObject]
    {
        guard let table = associations[name] else { return [] }
        return destinationInstances.compactMap { table.source(of: $0) }
    }

    /// The destination objects made from the objects of a source relationship, each through the mappings of its
    /// own entity (so objects of sub-entities find theirs).
    public func destinationInstances(forSourceRelationshipNamed name: String, sourceInstances: [ManagedObject])
        -> [ManagedObject]
    {
        sourceInstances.flatMap { source in
            (mappingsBySourceEntity[source.entity.name] ?? []).flatMap {
                associations[$0.name]?.destinations(of: source) ?? []
            }
        }
    }

    // MARK: Stages

    private func reset() {
        associations = [:]
        cancellation = nil
        currentEntityMapping = nil
        doneSteps = 0
        totalSteps = 1
        migrationProgress = 0
        reportedProgress = 0
        mappingsBySourceEntity = [:]
        for mapping in mappingModel.entityMappings where mapping.destinationEntityName != nil {
            if let source = mapping.sourceEntityName { mappingsBySourceEntity[source, default: []].append(mapping) }
        }
    }

    private func runStages() throws {
        let mappings = mappingModel.entityMappings
        let policies = try mappings.map(makePolicy)
        var sources: [[ManagedObject]] = []
        for mapping in mappings {
            sources.append(try sourceObjects(for: mapping))
        }
        totalSteps = max(1, 2 * sources.reduce(0) { $0 + $1.count } + mappings.count)
        // Stage 1: destination instances.
        for (index, mapping) in mappings.enumerated() {
            currentEntityMapping = mapping
            try policies[index].begin(mapping, with: self)
            for source in sources[index] {
                try checkCancelled()
                try policies[index].createDestinationInstances(forSource: source, in: mapping, manager: self)
                step()
            }
            try policies[index].endInstanceCreation(forMapping: mapping, manager: self)
        }
        // Stage 2: relationships.
        for (index, mapping) in mappings.enumerated() {
            currentEntityMapping = mapping
            for destination in associations[mapping.name]?.allDestinations ?? [] {
                try checkCancelled()
                try policies[index].createRelationships(forDestination: destination, in: mapping, manager: self)
            }
            doneSteps += sources[index].count
            step(by: 0)
            try policies[index].endRelationshipCreation(forMapping: mapping, manager: self)
        }
        // Stage 3: validation, then the save.
        for (index, mapping) in mappings.enumerated() {
            currentEntityMapping = mapping
            try checkCancelled()
            try policies[index].performCustomValidation(forMapping: mapping, manager: self)
            try policies[index].end(mapping, manager: self)
            step()
        }
        currentEntityMapping = nil
        do {
            try destinationContext.save()
        } catch let error as ValidationError {
            throw MigrationError(
                code: .validationFailed,
                message: "The migrated objects do not validate against the destination model: "
                    + error.message,
                context: error.context, cause: error)
        }
    }

    private func makePolicy(for mapping: EntityMapping) throws -> EntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy"
        else { return EntityMigrationPolicy() }
        guard let policyClass = EntityMigrationPolicy.policyClass(forClassName: name) else {
            throw MigrationError(
                code: .policyNotFound,
                message: "Entity mapping '\(mapping.name)' names the migration policy '\(name)', "
                    + "which is not registered; call EntityMigrationPolicy.register(_:forClassName:).",
                entityMappingName: mapping.name)
        }
        return policyClass.init()
    }

    /// The source objects of a mapping: its source entity's own instances, those its source expression selects.
    private func sourceObjects(for mapping: EntityMapping) throws -> [ManagedObject] {
        guard let entityName = mapping.sourceEntityName, mapping.mappingType != .add else { return [] }
        if mapping.mappingType == .remove, mapping.entityMigrationPolicyClassName == nil { return [] }
        let request = FetchRequest(entityName: entityName)
        request.includesSubentities = false
        request.returnsObjectsAsFaults = false
        request.sortKeys = []
        if let expression = mapping.sourceExpression {
            guard let call = expression.selectorCall, call.selector == Self.fetchRequestForSourceEntity,
                call.arguments.count == 2, case .constant(.string(let format)) = call.arguments[1]
            else {
                throw MigrationError(
                    code: .invalidMappingModel,
                    message: "The source expression of '\(mapping.name)' is not "
                        + "FUNCTION($manager, \"\(Self.fetchRequestForSourceEntity)\", entity, "
                        + "predicate).",
                    entityMappingName: mapping.name)
            }
            do {
                request.predicate = try ObjectPredicate(format: format)
            } catch {
                throw MigrationError(
                    code: .expressionFailed,
                    message: "The source predicate of '\(mapping.name)' does not parse: \(error)",
                    entityMappingName: mapping.name, cause: error)
            }
        }
        return try sourceContext.fetch(request)
    }

    private func checkCancelled() throws {
        guard let cancellation else { return }
        throw MigrationError(
            code: .cancelled, message: "The migration was cancelled.",
            entityMappingName: currentEntityMapping?.name, cause: cancellation)
    }

    private func step(by count: Int = 1) {
        doneSteps += count
        report(min(1, Float(doneSteps) / Float(totalSteps)))
    }

    private func report(_ progress: Float) {
        migrationProgress = progress
        if progress >= reportedProgress + 0.01 || progress == 1 {
            reportedProgress = progress
            progressHandler?(progress)
        }
    }

    /// Removes a store's file and SQLite's companions.
    static func removeStoreFiles(at url: URL) {
        for suffix in [""] + PersistentStoreCoordinator.journalSuffixes {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}

/// Which destination objects a mapping made from which source objects.
struct Associations {
    private var bySource: [ObjectIdentifier: [ManagedObject]] = [:]
    private var byDestination: [ObjectIdentifier: ManagedObject] = [:]
    private(set) var allDestinations: [ManagedObject] = []

    mutating func add(source: ManagedObject, destination: ManagedObject) {
        bySource[ObjectIdentifier(source), default: []].append(destination)
        byDestination[ObjectIdentifier(destination)] = source
        allDestinations.append(destination)
    }

    func destinations(of source: ManagedObject) -> [ManagedObject] { bySource[ObjectIdentifier(source)] ?? [] }

    func source(of destination: ManagedObject) -> ManagedObject? { byDestination[ObjectIdentifier(destination)] }
}
