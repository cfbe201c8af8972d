import Foundation

/// The model, the coordinator, its stores and the contexts an application uses, set up together (Core Data's
/// `NSPersistentContainer`).
///
/// ```swift
/// let container = PersistentContainer(name: "Notes", managedObjectModel: model)
/// try container.loadPersistentStores()
/// let note = await container.viewContext.insertNewObject(forEntityName: "Note")   // on the main actor
/// try await container.performBackgroundTask { context in
///     // import into `context`, then
///     try context.save()
/// }
/// ```
///
/// Without descriptions set, the container adds one SQLite store at
/// `defaultDirectoryURL()/<name>.sqlite`: `$XDG_DATA_HOME/<name>` when that variable is set, else
/// `~/.local/share/<name>` (on macOS, Application Support as in Core Data). Subclass and override
/// ``defaultDirectoryURL()`` to move it. The SQLite store type registers itself when its module
/// (`ObjectGraphSQLite`) is linked into the program.
///
/// Concurrency: ``viewContext`` belongs to the main actor; as in Core Data, it merges the saves of the container's
/// other contexts once ``ManagedObjectContext/automaticallyMergesChangesFromParent`` is set (off by default), and then
/// on the main actor. A context from ``newBackgroundContext()``
/// belongs to whoever made it; ``performBackgroundTask(_:)`` runs its body with a new one off the caller's actor.
open class PersistentContainer: @unchecked Sendable {  // mutable state is set up before `loadPersistentStores`
    /// The container's name: the default store's file name, the default folder's name.
    public let name: String
    /// The model.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores ``loadPersistentStores()`` adds; by default one SQLite store at the default location.
    public var persistentStoreDescriptions: [PersistentStoreDescription]

    /// A container of a model; nothing is read or written until ``loadPersistentStores()``.
    public init(name: String, managedObjectModel: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        self.persistentStoreDescriptions = []
        persistentStoreDescriptions = [
            PersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        ]
    }

    /// The folder of the default store: `$XDG_DATA_HOME/<name>`, else `~/.local/share/<name>` (Linux);
    /// Application Support (macOS). Created by ``loadPersistentStores()`` when missing.
    open class func defaultDirectoryURL() -> URL {
        #if os(macOS)
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #else
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        #endif
        return base
    }

    /// Adds every described store, in order; stops at the first that fails.
    ///
    /// Creates the folders of stores' files when missing. A store already added (a second call) is not added
    /// again.
    /// - Throws: the first store's error (`StoreError` of `addPersistentStore`: ``StoreError/Code/unknownStoreType``,
    ///   ``StoreError/Code/incompatibleModel``, …); stores added before it stay added.
    public func loadPersistentStores() throws {
        var failure: (any Error)?
        loadPersistentStores { _, error in
            if failure == nil { failure = error }
        }
        if let failure { throw failure }
    }

    /// Adds every described store, calling `completionHandler` once per description with the error, if any (Core
    /// Data's form). Continues after a failure.
    public func loadPersistentStores(completionHandler: (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                if let url = description.url, persistentStoreCoordinator.persistentStore(for: url) != nil {
                    completionHandler(description, nil)
                    continue
                }
                if let folder = description.url?.deletingLastPathComponent(), description.type != .inMemory {
                    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                }
                try persistentStoreCoordinator.addPersistentStore(
                    type: description.type, configurationName: description.configuration, at: description.url,
                    options: description.options)
                completionHandler(description, nil)
            } catch {
                completionHandler(description, error)
            }
        }
    }

    private let viewContextBox = MainActorContextBox()

    /// The main actor's context: for the user interface. Set its
    /// ``ManagedObjectContext/automaticallyMergesChangesFromParent`` (off by default, as in Core Data) to have it
    /// merge the saves of the container's other contexts, on the main actor, as soon as they commit.
    @MainActor
    public var viewContext: ManagedObjectContext {
        if let context = viewContextBox.context { return context }
        let context = ManagedObjectContext(coordinator: persistentStoreCoordinator)
        context.name = "viewContext"
        context.mergesOnMainActorWhenMerging = true
        viewContextBox.context = context
        return context
    }

    /// A new context on the container's coordinator, for work away from the main actor. It belongs to the caller,
    /// like any context: use it from one isolation domain.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(coordinator: persistentStoreCoordinator)
        context.name = "backgroundContext"
        return context
    }

    /// Runs `block` with a new background context, off the caller's actor, and returns what it returns. The
    /// context goes away afterwards: save inside `block`.
    @concurrent
    public func performBackgroundTask<T: Sendable>(_ block: sending (ManagedObjectContext) throws -> T) async rethrows
        -> T
    {
        try block(newBackgroundContext())
    }
}

/// The view context, made on first use on the main actor and only ever touched there.
private final class MainActorContextBox: @unchecked Sendable {  // `context` is read and written on the main actor only
    @MainActor var context: ManagedObjectContext?

    nonisolated init() {}
}
