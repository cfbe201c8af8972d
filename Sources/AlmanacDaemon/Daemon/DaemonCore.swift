import Foundation
import ObjectGraph
import ObjectGraphSQLite
import ObjectGraphXML
import Schedules

/// The daemon's data, set up: the coordinator with the personal store and every schedule file attached, a `Run`
/// recorded, and the query engine on top. Everything but the socket and the watcher, so tests can drive it.
public final class DaemonCore: Sendable {
    /// The settings it started with.
    public let configuration: DaemonConfiguration
    /// The schedule files.
    public let library: ScheduleLibrary
    /// The request handling.
    public let engine: QueryEngine
    /// The personal store.
    public let personalStore: PersistentStore

    /// The version reported by `hello`.
    public static let version = "0.1.0"

    /// Sets everything up.
    ///
    /// - Throws: a ``ConfigurationError`` when the state folder cannot be created or the personal store cannot be
    ///   opened (a damaged personal store is never overwritten).
    public init(configuration: DaemonConfiguration, model: ManagedObjectModel? = nil) throws {
        self.configuration = configuration
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(at: configuration.stateFolder, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o750])
        } catch {
            throw ConfigurationError(message: "cannot create the state folder \(configuration.stateFolder.path): "
                                        + error.localizedDescription)
        }
        let model = try model ?? Self.loadModel(configuration.modelURL)
        ScheduleModel.registerClasses()
        XMLStore.register()
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let personalURL = configuration.stateFolder.appendingPathComponent("personal.sqlite")
        do {
            personalStore = try coordinator.addPersistentStore(
                type: .sqlite, configurationName: "Personal", at: personalURL,
                options: [.migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true])
        } catch {
            throw ConfigurationError(message: "cannot open the personal store \(personalURL.path): \(error)")
        }
        library = ScheduleLibrary(coordinator: coordinator, configuration: ScheduleLibrary.Configuration(
            folders: configuration.watchFolders, readOnlyInbox: configuration.readOnlyInbox,
            maximumFileSize: configuration.maximumFileSize))
        engine = QueryEngine(library: library, personalStore: personalStore, routingRules: configuration.routingRules,
                             version: Self.version)
        try recordRun()
    }

    /// The model from `--model`, or the compiled-in schedule model.
    static func loadModel(_ url: URL?) throws -> ManagedObjectModel {
        guard let url else { return ScheduleModel.make() }
        do {
            return try ManagedObjectModel(contentsOf: url)
        } catch {
            throw ConfigurationError(message: "cannot read the model \(url.path): \(error)")
        }
    }

    /// Records this start as a `Run` in the personal store.
    private func recordRun() throws {
        let context = ManagedObjectContext(coordinator: library.coordinator)
        let run = context.insertNewObject(forEntityName: "Run")
        run.setValue(Int(ProcessInfo.processInfo.processIdentifier), forKey: "processID")
        try context.assign(run, to: personalStore)
        try context.save()
    }

    /// Attaches every file of every watched folder; returns the outcomes.
    @discardableResult
    public func scanAll() -> [(URL, ScheduleLibrary.Outcome)] {
        configuration.watchFolders.flatMap { library.rescan($0) }
    }

    /// "serving N stores, M sessions", for systemd's status line and the log.
    public var statusLine: String {
        let stores = library.coordinator.persistentStores.count
        return "serving \(stores) stores, \(engine.sessionCount()) sessions"
    }
}
