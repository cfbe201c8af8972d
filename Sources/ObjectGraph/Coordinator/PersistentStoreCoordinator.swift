import Foundation
import Synchronization

/// The coordinator: one model, many stores, and the one place where fetches and saves meet the stores.
///
/// A coordinator is safe to share between threads and contexts. Reads (fetches, counts, faults filled) from
/// several threads run at the same time; a save, or adding, removing or replacing a store, waits for the reads
/// under way and runs alone, so every read sees each store entirely before or entirely after a change. A store
/// that cannot answer two reads at once (``PersistentStore/allowsConcurrentReads``) gets them one at a time.
/// Stores are searched in the order they were added.
public final class PersistentStoreCoordinator: @unchecked Sendable {  // mutable state is guarded by `lock`
    /// The model; frozen by the coordinator.
    public let managedObjectModel: ManagedObjectModel

    /// Requests: reads share it, writes (saves, store changes) hold it alone.
    let gate = ReadWriteGate()
    /// The coordinator's own state (`stores`, `targetCache`, `strictRouting`, `saveObservers`), briefly.
    private let lock = Lock(recursive: true)
    private var stores: [PersistentStore] = [] {
        didSet {
            targetCache.removeAll()
            mergedOrders.removeAll()
            counts.removeAll()
            positionsByIdentifier = nil
            storesGeneration = StoreInstanceNumbers.next()
            tokenSources = nil
        }
    }
    /// A number no other list of stores in the process had, new whenever `stores` changes: the part of
    /// ``contentToken()`` that says which stores are attached.
    private var storesGeneration = StoreInstanceNumbers.next()
    /// What ``contentToken()`` reads, made when first needed after `stores` changed: the atomic stores, the sum of
    /// their versions with the value of `AtomicStore.contentChanges` it was made at, and the other stores, whose
    /// tokens are read one by one.
    private var tokenSources: (atomic: [AtomicStore], changes: UInt64?, versions: UInt64, others: [PersistentStore])?
    /// Each attached store's position by identifier (the first of stores sharing one), made when first needed and
    /// kept up to date as stores are attached; made again when an attached store's identifier changed since
    /// (`PersistentStore.attachedIdentifierChanges`). Attaching each of 10,000 stores compared its identifier with
    /// every attached store's, a fifth of the daemon's start-up.
    private var positionsByIdentifier: [String: Int]?
    /// `PersistentStore.attachedIdentifierChanges` when `positionsByIdentifier` was made.
    private var positionsMadeAt = 0
    /// Sorted orders merged across atomic stores, for repeated sorted fetches over many stores.
    let mergedOrders = MergedOrderCache()
    /// Counts over several atomic stores, for the totals of repeated paged fetches.
    let counts = CountCache()
    /// The stores each set of entity names reaches (requests without `affectedStores`), until the stores change.
    var targetCache: [[String]: FetchTargets] = [:]
    private var strictRouting = false
    private var saveObservers: [UUID: @Sendable (ContextDidSave) -> Void] = [:]
    private let storeChanges = Atomic<Int>(0)
    /// Incremented whenever a store is removed or replaced, so contexts can invalidate that store's objects. An
    /// atomic rather than state under the lock: a context reads it for every object it inserts.
    var storeGeneration: Int { storeChanges.load(ordering: .acquiring) }
    private let contentChanges = Atomic<UInt64>(0)
    /// Changes whenever a save through the coordinator commits or a store is removed or replaced: values
    /// read before are then not trusted to be current (faults made with their values read them again).
    var contentGeneration: UInt64 { contentChanges.load(ordering: .acquiring) }

    func noteContentChanged() { contentChanges.add(1, ordering: .releasing) }

    /// Creates a coordinator for a model and freezes the model.
    public init(managedObjectModel: ManagedObjectModel) {
        managedObjectModel.freeze()
        self.managedObjectModel = managedObjectModel
    }

    /// Runs `body` as the coordinator's only request: no other request runs and no store changes meanwhile.
    ///
    /// Re-entrant: requests made inside `body` (a context's fetch or save) run as part of it.
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        try gate.write(body)
    }

    /// Runs `body` as a reader: other readers may run at the same time, but no save and no store change happens
    /// until it returns, so every fetch inside `body` sees the same stores with the same contents.
    ///
    /// Fetches, counts and object lookups may run inside `body`; a save, or adding, removing or replacing a store,
    /// may not (it would wait for `body` to finish) and stops the process with a message.
    public func performReading<T>(_ body: () throws -> T) rethrows -> T {
        try gate.read(body)
    }

    /// Runs `body` holding the lock of the coordinator's own state: short, and never around a store's work.
    func withState<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// When on, a save fails rather than picking the first of several writable stores that could hold a new object.
    public var usesStrictRouting: Bool {
        get { withState { strictRouting } }
        set { withState { strictRouting = newValue } }
    }

    // MARK: Store types

    /// Registers a store class under a type name, replacing any earlier registration of that name.
    public static func registerStoreClass(_ storeClass: PersistentStore.Type, forStoreType type: PersistentStoreType) {
        StoreTypeRegistry.shared.register(storeClass, for: type)
    }

    /// The store class registered under a type name, if any.
    public static func registeredStoreClass(for type: PersistentStoreType) -> PersistentStore.Type? {
        StoreTypeRegistry.shared.storeClass(for: type)
    }

    /// The registered store types, sorted by name.
    public static var registeredStoreTypes: [PersistentStoreType] { StoreTypeRegistry.shared.registeredTypes }

    // MARK: Stores

    /// The attached stores, in the order they were added.
    public var persistentStores: [PersistentStore] { withState { stores } }

    /// What ``contentToken()`` combines: the list's generation, the sum of the atomic stores' versions, and the
    /// stores whose tokens are read one by one.
    ///
    /// An atomic store's version only grows, so with the same stores the sum changes exactly when one of them
    /// changed; it is summed again only when some atomic store of the process changed since
    /// (`AtomicStore.contentChanges`, moved after the version, read before it).
    func contentTokenSources() -> (generation: UInt64, versions: UInt64, others: [PersistentStore]) {
        withState {
            let changes = AtomicStore.contentChanges.load(ordering: .acquiring)
            if tokenSources == nil {
                var atomic: [AtomicStore] = []
                var others: [PersistentStore] = []
                for store in stores {
                    if let store = store as? AtomicStore { atomic.append(store) } else { others.append(store) }
                }
                tokenSources = (atomic, nil, 0, others)
            }
            var sources = tokenSources!
            if sources.changes != changes {
                sources.versions = sources.atomic.reduce(0) { $0 &+ $1.contentVersion }
                sources.changes = changes
                tokenSources = sources
            }
            return (storesGeneration, sources.versions, sources.others)
        }
    }

    /// Adds a store: creates it, reads its metadata, checks the model, loads it.
    ///
    /// - Parameters:
    ///   - type: a registered store type.
    ///   - configurationName: the configuration whose entities the store holds; `nil` for every entity.
    ///   - url: the store's file; `nil` only for in-memory stores.
    ///   - options: store options such as `.readOnly`.
    /// - Returns: the attached store.
    /// - Throws: ``StoreError`` with ``StoreError/Code/unknownStoreType``, ``StoreError/Code/unknownConfiguration``,
    ///   ``StoreError/Code/storeAlreadyAdded``, ``StoreError/Code/incompatibleModel`` or the store's own load errors.
    @discardableResult
    public func addPersistentStore(type: PersistentStoreType, configurationName: String? = nil, at url: URL? = nil,
                                   options: PersistentStoreOptions = [:]) throws -> PersistentStore {
        let store = try makeStore(type: type, configurationName: configurationName, url: url, options: options)
        try performAndWait {
            try withState {
            if let url, stores.contains(where: { $0.url?.standardizedFileURL == url.standardizedFileURL }) {
                throw StoreError(code: .storeAlreadyAdded,
                                 message: "A store for \(url.path) is already attached; remove it first.",
                                 context: ErrorContext(storeURL: url))
            }
            if position(ofIdentifier: store.identifier) != nil {
                throw StoreError(code: .storeAlreadyAdded,
                                 message: "A store with UUID \(store.identifier) is already attached (a copy of the "
                                    + "same file?); remove it first.",
                                 context: ErrorContext(storeURL: url))
            }
            append(store)
            }
        }
        return store
    }

    /// Creates, checks and loads a store without attaching it.
    func makeStore(type: PersistentStoreType, configurationName: String?, url: URL?,
                   options: PersistentStoreOptions) throws -> PersistentStore {
        guard let storeClass = StoreTypeRegistry.shared.storeClass(for: type) else {
            throw StoreError(code: .unknownStoreType,
                             message: "No store class is registered for type '\(type)'; import its module and register "
                                + "it (registered: \(Self.registeredStoreTypes.map(\.rawValue).joined(separator: ", "))).",
                             context: ErrorContext(storeURL: url))
        }
        if let configurationName, configurationName != ManagedObjectModel.defaultConfigurationName,
            managedObjectModel.entities(forConfigurationName: configurationName) == nil
        {
            throw StoreError(code: .unknownConfiguration,
                             message: "The model has no configuration named '\(configurationName)' (it has: "
                                + managedObjectModel.configurations.joined(separator: ", ") + ").",
                             context: ErrorContext(storeURL: url))
        }
        var store = try storeClass.init(model: managedObjectModel, configurationName: configurationName, url: url,
                                        options: options)
        try store.loadMetadata()
        if let url, needsMigration(store, options: options) {
            // Heavyweight or staged migration (see PersistentStoreCoordinator+AutomaticMigration.swift).
            store.didRemove()
            try migrateStoreFile(type: type, at: url, options: options, metadata: store.metadata)
            store = try storeClass.init(
                model: managedObjectModel, configurationName: configurationName, url: url, options: options)
            try store.loadMetadata()
        }
        if store.metadata.storeUUID == nil { store.metadata.storeUUID = UUID().uuidString }
        if !options.flag(.ignoresModelVersion),
            !managedObjectModel.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: store.metadata)
        {
            let stored = store.metadata.modelVersionHashes ?? [:]
            let current = store.modelVersionHashes()
            let differing = Set(stored.keys).union(current.keys).filter { name in
                guard let hash = stored[name], let entity = managedObjectModel.entitiesByName[name],
                    current[name] != nil
                else { return true }
                return !entity.matchesVersionHash(hash)
            }.sorted()
            throw StoreError(code: .incompatibleModel,
                             message: "The store was written with a different model (entities differing: "
                                + differing.joined(separator: ", ") + "); open it with the model that wrote it, "
                                + "migrate it, or pass .ignoresModelVersion.",
                             context: ErrorContext(storeURL: url))
        }
        try store.load()
        if store.isTrackingPersistentHistory { try store.loadHistory() }
        return store
    }

    /// Detaches a store. Objects from it become invalid in every context (on the context's next use).
    ///
    /// - Throws: ``StoreError/Code/storeNotFound`` if the store is not attached.
    public func remove(_ store: PersistentStore) throws {
        try performAndWait {
            try withState {
                guard let index = stores.firstIndex(where: { $0 === store }) else {
                    throw StoreError(code: .storeNotFound, message: "The store is not attached to this coordinator.",
                                     context: ErrorContext(storeURL: store.url))
                }
                stores.remove(at: index)
                store.attachments.subtract(1, ordering: .releasing)
                storeChanges.add(1, ordering: .releasing)
                noteContentChanged()
            }
        }
        store.didRemove()
    }

    /// Replaces an attached store by another in the same position, atomically for every reader.
    ///
    /// The daemon uses this to swap in a newer release of a file: a fetch sees either the old or the new store.
    public func replace(_ old: PersistentStore, with new: PersistentStore) throws {
        try performAndWait {
            try withState {
                guard let index = stores.firstIndex(where: { $0 === old }) else {
                    throw StoreError(code: .storeNotFound, message: "The store to replace is not attached.",
                                     context: ErrorContext(storeURL: old.url))
                }
                stores[index] = new
                old.attachments.subtract(1, ordering: .releasing)
                new.attachments.add(1, ordering: .releasing)
                storeChanges.add(1, ordering: .releasing)
                noteContentChanged()
            }
        }
        old.didRemove()
    }

    /// Creates and loads a store exactly like ``addPersistentStore(type:configurationName:at:options:)`` but does not
    /// attach it; attach it later with ``attach(_:)`` or ``replace(_:with:)``. Useful to load big files without
    /// holding the coordinator's lock.
    public func loadDetachedStore(type: PersistentStoreType, configurationName: String? = nil, at url: URL? = nil,
                                  options: PersistentStoreOptions = [:]) throws -> PersistentStore {
        try makeStore(type: type, configurationName: configurationName, url: url, options: options)
    }

    /// Attaches a store made by ``loadDetachedStore(type:configurationName:at:options:)``.
    public func attach(_ store: PersistentStore) throws {
        try performAndWait {
            try withState {
                // The same store object has the same identifier: one lookup finds both.
                guard position(ofIdentifier: store.identifier) == nil else {
                    throw StoreError(code: .storeAlreadyAdded, message: "The store is already attached.",
                                     context: ErrorContext(storeURL: store.url))
                }
                append(store)
            }
        }
    }

    /// The attached store at a URL, if any.
    public func persistentStore(for url: URL) -> PersistentStore? {
        withState { stores.first { $0.url?.standardizedFileURL == url.standardizedFileURL } }
    }

    /// The attached store with an identifier (UUID), if any.
    public func persistentStore(withIdentifier identifier: String) -> PersistentStore? {
        withState { position(ofIdentifier: identifier).map { stores[$0] } }
    }

    /// The position in `stores` of the first store with `identifier`, from the index. Call within `withState`.
    func position(ofIdentifier identifier: String) -> Int? {
        let position = positionIndex()[identifier]
        assert(position.map { stores[$0].identifier == identifier } ?? true, "the stores' index is out of date")
        return position
    }

    /// ``positionsByIdentifier``, made now if there is none or an attached store's identifier changed since it was
    /// made. Call within `withState`.
    private func positionIndex() -> [String: Int] {
        let changes = PersistentStore.attachedIdentifierChanges.load(ordering: .acquiring)
        if let positions = positionsByIdentifier, positionsMadeAt == changes { return positions }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(stores.count)
        for (position, store) in stores.enumerated().reversed() { positions[store.identifier] = position }
        positionsByIdentifier = positions
        positionsMadeAt = changes
        return positions
    }

    /// Attaches a store at the end, keeping the index of positions (when there is one) up to date. Call within
    /// `withState`.
    private func append(_ store: PersistentStore) {
        var positions = positionsByIdentifier
        positionsByIdentifier = nil  // so that `positions` is the index's only reference: updated in place
        stores.append(store)
        store.attachments.add(1, ordering: .releasing)
        guard var index = positions.take() else { return }
        if index[store.identifier] == nil { index[store.identifier] = stores.count - 1 }
        positionsByIdentifier = index
    }

    /// Moves a store to a new URL; its next save writes there. Returns `false` if the store is not attached.
    @discardableResult
    public func setURL(_ url: URL, for store: PersistentStore) -> Bool {
        performAndWait {
            guard withState({ stores.contains(where: { $0 === store }) }) else { return false }
            store.url = url
            return true
        }
    }

    /// The metadata of an attached store.
    public func metadata(for store: PersistentStore) -> StoreMetadata {
        performReading { store.metadata }
    }

    /// Replaces the metadata of a store (its UUID is kept); written with the store's next save.
    public func setMetadata(_ metadata: StoreMetadata, for store: PersistentStore) throws {
        try performAndWait {
            var new = metadata
            new.storeUUID = store.identifier
            store.metadata = new
            try store.saveMetadata()
        }
    }

    /// Reads a store file's metadata without attaching it.
    public static func metadataForPersistentStore(type: PersistentStoreType, at url: URL,
                                                  options: PersistentStoreOptions = [:],
                                                  model: ManagedObjectModel) throws -> StoreMetadata {
        guard let storeClass = StoreTypeRegistry.shared.storeClass(for: type) else {
            throw StoreError(code: .unknownStoreType, message: "No store class is registered for type '\(type)'.",
                             context: ErrorContext(storeURL: url))
        }
        model.freeze()
        let store = try storeClass.init(model: model, configurationName: nil, url: url, options: options)
        try store.loadMetadata()
        return store.metadata
    }

    // MARK: Object IDs

    /// Resolves a URI made by ``ManagedObjectID/uriRepresentation()``: the store must be attached and hold the
    /// entity. Temporary URIs resolve to their temporary ID. Returns `nil` for anything else.
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard let id = ManagedObjectID(uriRepresentation: uri),
            managedObjectModel.entitiesByName[id.entityName] != nil
        else { return nil }
        if id.isTemporaryID { return id }
        return withState {
            stores.contains { $0.identifier == id.storeIdentifier } ? id : nil
        }
    }

    /// The attached store that holds an object ID, if any.
    public func persistentStore(of objectID: ManagedObjectID) -> PersistentStore? {
        guard let identifier = objectID.storeIdentifier else { return nil }
        return persistentStore(withIdentifier: identifier)
    }

    // MARK: Save observers

    /// Calls `observer` after every successful save of any context on this coordinator, with the saved IDs.
    ///
    /// The observer runs on the saving thread while no lock is held; hop to your own isolation domain before
    /// touching a context. Returns a token for ``removeSaveObserver(_:)``.
    @discardableResult
    public func addSaveObserver(_ observer: @escaping @Sendable (ContextDidSave) -> Void) -> UUID {
        let token = UUID()
        withState { saveObservers[token] = observer }
        return token
    }

    /// Stops calling a save observer.
    public func removeSaveObserver(_ token: UUID) {
        withState { saveObservers[token] = nil }
    }

    /// Whether any save observer is registered (so that callers build events only for someone).
    var hasSaveObservers: Bool { withState { !saveObservers.isEmpty } }

    func notifySaved(_ event: ContextDidSave) {
        let observers = withState { Array(saveObservers.values) }
        for observer in observers { observer(event) }
    }
}
