import Foundation
import ObjectGraph
import ObjectGraphPostgres
import ObjectGraphSQLite
import ObjectGraphXML
import Testing

/// A small schedule-like model built in code, exercising every delete rule, inheritance and two configurations.
enum TestModel {
    static func make() -> ManagedObjectModel {
        let conference = EntityDescription(name: "Conference", properties: [
            AttributeDescription(name: "acronym", type: .string, isOptional: false),
            RelationshipDescription(name: "sessions", destination: "Session", inverse: "conference", toMany: true,
                                    deleteRule: .cascade),
        ])
        let room = EntityDescription(name: "Room", properties: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            RelationshipDescription(name: "sessions", destination: "Session", inverse: "room", toMany: true,
                                    deleteRule: .nullify),
        ])
        let track = EntityDescription(name: "Track", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "sessions", destination: "Session", inverse: "track", toMany: true,
                                    deleteRule: .deny),
        ])
        let person = EntityDescription(name: "Person", properties: [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "sessions", destination: "Session", inverse: "persons", toMany: true),
        ])
        let title = AttributeDescription(name: "title", type: .string, isOptional: false)
        title.maximumValue = 200
        let code = AttributeDescription(name: "code", type: .string)
        code.regularExpression = "[A-Z]{3}-[0-9]+"
        let duration = AttributeDescription(name: "duration", type: .integer32, defaultValue: 30)
        duration.minimumValue = 0
        let session = EntityDescription(name: "Session", properties: [
            AttributeDescription(name: "guid", type: .string, isOptional: false),
            title, code, duration,
            AttributeDescription(name: "start", type: .date),
            AttributeDescription(name: "scratch", type: .string).transient(),
            RelationshipDescription(name: "conference", destination: "Conference", inverse: "sessions"),
            RelationshipDescription(name: "room", destination: "Room", inverse: "sessions"),
            RelationshipDescription(name: "track", destination: "Track", inverse: "sessions"),
            RelationshipDescription(name: "persons", destination: "Person", inverse: "sessions", toMany: true,
                                    isOrdered: true),
            RelationshipDescription(name: "notes", destination: "Note", toMany: true, deleteRule: .noAction),
        ])
        let workshop = EntityDescription(name: "Workshop", properties: [
            AttributeDescription(name: "capacity", type: .integer16),
        ])
        session.subentities = [workshop]
        let note = EntityDescription(name: "Note", properties: [AttributeDescription(name: "text", type: .string)])
        let processID = AttributeDescription(name: "processID", type: .integer32, isOptional: false, defaultValue: -1)
        processID.minimumValue = 0
        let run = EntityDescription(name: "Run", properties: [
            AttributeDescription(name: "date", type: .date, isOptional: false), processID,
        ], managedObjectClassName: "TestRun")
        let favorite = EntityDescription(name: "Favorite", properties: [
            AttributeDescription(name: "sessionGUID", type: .string, isOptional: false),
        ])
        let model = ManagedObjectModel(entities: [conference, room, track, person, session, workshop, note, run,
                                                  favorite])
        model.setEntities([conference, room, track, person, session, workshop, note], forConfigurationName: "Schedule")
        model.setEntities([favorite, run, session, workshop, note], forConfigurationName: "Personal")
        model.localizationDictionary = ["Property/processID/Entity/Run": "Process ID"]
        let template = FetchRequest(entityName: "Session")
        template.predicate = try? ObjectPredicate(format: "room.name == $ROOM")
        model.setFetchRequestTemplate(template, forName: "SessionsInRoom")
        ManagedObjectClassRegistry.register(Run.self, forClassName: "TestRun")
        return model
    }
}

/// Core Data's tutorial `Run`: its date set on insertion, its process ID defaulting to -1 (invalid until set).
final class Run: ManagedObject {
    var date: Date? {
        get { value(forKey: "date") as? Date }
        set { setValue(newValue, forKey: "date") }
    }

    var processID: Int {
        get { value(forKey: "processID") as? Int ?? -1 }
        set { setValue(newValue, forKey: "processID") }
    }

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }
}

extension AttributeDescription {
    func transient() -> AttributeDescription {
        isTransient = true
        return self
    }
}

/// A folder of its own for one test, removed when the value goes away.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("og-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The store types the conformance suite runs against.
struct StoreKind: CustomStringConvertible, Sendable {
    let type: PersistentStoreType
    let fileExtension: String
    var description: String { type.rawValue }

    static let inMemory = StoreKind(type: .inMemory, fileExtension: "mem")
    static let binary = StoreKind(type: .binary, fileExtension: "bin")
    static let xml = StoreKind(type: .xml, fileExtension: "xml")
    static let sqlite = StoreKind(type: .sqlite, fileExtension: "sqlite")
    static let postgres = StoreKind(type: .postgres, fileExtension: "")

    /// Every store type: the conformance suite runs against each (PostgreSQL when `ALMANAC_POSTGRES_URL` names a
    /// server; see `PostgresTestServer`).
    static let all: [StoreKind] = {
        XMLStore.register()
        SQLiteStore.register()
        PostgresStore.register()
        return [inMemory, binary, xml, sqlite] + (PostgresTestServer.url == nil ? [] : [postgres])
    }()

    /// The location of a test's store named `name`: a file in the test's folder, or for PostgreSQL a schema of
    /// its own on the test server (named after the folder, so tests running in parallel never share one).
    func url(_ name: String, in folder: TemporaryFolder) -> URL {
        guard type == .postgres, let server = PostgresTestServer.url else {
            return folder.file("\(name).\(fileExtension)")
        }
        return PostgresTestServer.store(schema: folder.url.lastPathComponent + "_" + name, on: server)
    }
}

/// The PostgreSQL server of the test run, named by `ALMANAC_POSTGRES_URL` (`scripts/postgres-cluster.sh start`
/// prints one; `.ci/run` exports it). Without it the PostgreSQL tests are skipped, except under `CI=true`.
enum PostgresTestServer {
    /// The server's URL, e.g. `postgres:///postgres?host=/tmp/almanac-pg.X&user=postgres`; nil when unset.
    static let url: URL? = {
        guard let value = ProcessInfo.processInfo.environment["ALMANAC_POSTGRES_URL"], !value.isEmpty else {
            return nil
        }
        return URL(string: value)
    }()

    /// Whether the run is CI's, where a skipped PostgreSQL test is a failure.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The reason PostgreSQL tests are skipped.
    static let skipReason = Comment(
        rawValue: "ALMANAC_POSTGRES_URL is unset: no PostgreSQL server to test against "
            + "(start one with scripts/postgres-cluster.sh start)")

    /// A store URL on the server with its own schema (lower-cased, letters, digits and underscores).
    static func store(schema: String, on server: URL) -> URL {
        let name = String(schema.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(60))
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        var items = (components.queryItems ?? []).filter { $0.name != "schema" }
        items.append(URLQueryItem(name: "schema", value: name))
        components.queryItems = items
        return components.url!
    }
}

/// A coordinator with one or more stores of a kind, in a temporary folder.
struct Fixture {
    let folder = TemporaryFolder()
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let kind: StoreKind

    init(_ kind: StoreKind = StoreKind.all[0]) {
        self.kind = kind
        _ = StoreKind.all
        model = TestModel.make()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    }

    @discardableResult
    func addStore(_ name: String = "store", configuration: String? = nil,
                  options: PersistentStoreOptions = [:]) throws -> PersistentStore {
        try coordinator.addPersistentStore(type: kind.type, configurationName: configuration,
                                           at: kind.url(name, in: folder), options: options)
    }

    func context() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }
}

extension ManagedObjectContext {
    @discardableResult
    func makeSession(_ guid: String, title: String? = nil, start: Date? = nil) -> ManagedObject {
        let session = insertNewObject(forEntityName: "Session")
        session.setValue(guid, forKey: "guid")
        session.setValue(title ?? "Talk \(guid)", forKey: "title")
        if let start { session.setValue(start, forKey: "start") }
        return session
    }

    func all(_ entity: String, sortedBy key: String? = nil) throws -> [ManagedObject] {
        let request = FetchRequest(entityName: entity)
        if let key { request.sortKeys = [SortKey(key)] }
        return try fetch(request)
    }
}
