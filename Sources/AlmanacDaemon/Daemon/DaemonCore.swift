import Foundation
import ObjectGraph
import ObjectGraphPostgres
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
    /// The threads that run coordinator work for requests, the watcher and reloads.
    public let storeThreads = StoreThreadPool()

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
            try fileManager.createDirectory(
                at: configuration.stateFolder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o750])
        } catch {
            throw ConfigurationError(
                message: "cannot create the state folder \(configuration.stateFolder.path): "
                    + error.localizedDescription)
        }
        let model = try model ?? Self.loadModel(configuration.modelURL)
        ScheduleModel.registerClasses()
        XMLStore.register()
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        if let shared = configuration.personalStoreURL {
            // The personal configuration shared through PostgreSQL: a save is acknowledged once the server committed it.
            PostgresStore.register()
            let name = PostgresStoreLocation(url: shared)?.displayString ?? "(not a PostgreSQL URL)"
            do {
                personalStore = try coordinator.addPersistentStore(
                    type: .postgres, configurationName: "Personal", at: shared,
                    options: [
                        .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
                        // Writes recorded with their author; the history tells other daemons what changed.
                        .persistentHistoryTracking: true,
                    ])
            } catch {
                throw ConfigurationError(message: "cannot open the personal store \(name): \(error)")
            }
        } else {
            let personalURL = configuration.stateFolder.appendingPathComponent("personal.sqlite")
            do {
                personalStore = try coordinator.addPersistentStore(
                    type: .sqlite, configurationName: "Personal", at: personalURL,
                    // An acknowledged write is on disk: every commit is synced before the reply is sent (WAL with
                    // synchronous = NORMAL syncs only at checkpoints, so a power loss could take acknowledged
                    // favourites).
                    options: [
                        .migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true,
                        .sqliteSynchronousFull: true,
                        // Each write is recorded with its author (the client's uid and request id): `history`.
                        .persistentHistoryTracking: true,
                    ])
            } catch {
                throw ConfigurationError(message: "cannot open the personal store \(personalURL.path): \(error)")
            }
        }
        library = ScheduleLibrary(
            coordinator: coordinator,
            configuration: ScheduleLibrary.Configuration(
                folders: configuration.watchFolders, readOnlyInbox: configuration.readOnlyInbox,
                maximumFileSize: configuration.maximumFileSize, fileSettings: configuration.fileSettings))
        engine = QueryEngine(
            library: library, personalStore: personalStore, routingRules: configuration.routingRules,
            version: Self.version, maximumReplyObjects: configuration.maximumReplyObjects)
        runID = try Self.recordRun(coordinator: coordinator, in: personalStore)
    }

    /// This start's `Run`.
    private let runID: ManagedObjectID

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
    private static func recordRun(coordinator: PersistentStoreCoordinator, in store: PersistentStore) throws
        -> ManagedObjectID
    {
        let context = ManagedObjectContext(coordinator: coordinator)
        let run = context.insertNewObject(forEntityName: "Run")
        run.setValue(Int(ProcessInfo.processInfo.processIdentifier), forKey: "processID")
        try context.assign(run, to: store)
        try context.save()
        return run.objectID
    }

    /// The `Run` note that records the one-time move of personal objects to today's conference names.
    static let conferenceNamesMigration = "migrated personal objects to conference names (issue 23)"

    /// Moves favourites, reminders and notes made under the conference names of earlier versions (`calendar:NAME`,
    /// `file:STEM`, or an acronym a per-file setting now replaces) to the conferences' names, once: this start's
    /// `Run` records it, and later starts do nothing. Call after the first scan, so that the served conferences say
    /// what their old names were; an old name no served file answers to becomes the slug of its value.
    ///
    /// - Returns: How many objects were changed (0 when an earlier start did it).
    @discardableResult
    public func migrateConferenceNames() throws -> Int {
        let context = ManagedObjectContext(coordinator: library.coordinator)
        let done = FetchRequest(entityName: "Run")
        done.predicate = ObjectPredicate.comparison(
            .keyPath("note"), .equalTo, .constant(.string(Self.conferenceNamesMigration)))
        guard try context.count(for: done) == 0 else { return 0 }
        var renamed: [String: String] = [:]
        for entry in library.entriesByPath {
            guard let conference = entry.document?.conference else { continue }
            renamed[conference.acronym ?? conference.identity.description] = conference.name
            renamed[conference.identity.description] = conference.name
        }
        var changed = 0
        for entity in ["Favorite", "Reminder", "Note"] {
            let request = FetchRequest(entityName: entity)
            request.affectedStores = [personalStore]
            for object in try context.fetch(request) {
                guard let old = object.value(forKey: "conferenceAcronym") as? String else { continue }
                var new = renamed[old]
                if new == nil, let colon = old.firstIndex(of: ":"), ["calendar", "file"].contains(old[..<colon]) {
                    new = ConferenceIdentity.slug(String(old[old.index(after: colon)...]))
                }
                guard let new, new != old else { continue }
                object.setValue(new, forKey: "conferenceAcronym")
                changed += 1
            }
        }
        let run = try context.existingObject(with: runID)
        run.setValue(Self.conferenceNamesMigration, forKey: "note")
        try context.save()
        return changed
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
