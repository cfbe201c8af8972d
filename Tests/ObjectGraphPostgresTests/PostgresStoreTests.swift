import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphPostgres
@testable import ObjectGraphTestSupport

@Suite("PostgreSQL store locations")
struct PostgresStoreLocationTests {
    @Test func readsTheTCPForm() throws {
        let location = try #require(
            PostgresStoreLocation(
                url: URL(string: "postgres://ann:secret@127.0.0.1:5433/almanac?schema=personal")!))
        #expect(location.host == "127.0.0.1")
        #expect(location.port == 5433)
        #expect(location.user == "ann")
        #expect(location.password == "secret")
        #expect(location.database == "almanac")
        #expect(location.schema == "personal")
        #expect(location.socketFolder == nil)
        #expect(!location.displayString.contains("secret"))
    }

    @Test func readsTheUnixSocketForm() throws {
        let location = try #require(
            PostgresStoreLocation(
                url: URL(string: "postgres:///almanac?host=/run/postgresql&schema=personal")!))
        #expect(location.host == nil)
        #expect(location.socketFolder == "/run/postgresql")
        #expect(location.port == 5432)
        #expect(location.user == "postgres")
        #expect(location.database == "almanac")
        #expect(location.schema == "personal")
        #expect(location.configuration.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
    }

    @Test func defaultsToThePublicSchema() throws {
        let location = try #require(PostgresStoreLocation(url: URL(string: "postgresql://db.example/almanac")!))
        #expect(location.schema == "public")
        #expect(location.host == "db.example")
    }

    @Test(arguments: ["file:///tmp/x.sqlite", "postgres://host/", "postgres://host/a/b", "http://host/almanac"])
    func refusesOtherURLs(_ string: String) {
        #expect(PostgresStoreLocation(url: URL(string: string)!) == nil)
    }

    @Test func addingAStoreWithAFileURLThrowsInvalidURIAndAddsNothing() {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        #expect(throws: StoreError(code: .invalidURI, message: "")) {
            try coordinator.addPersistentStore(type: .postgres, at: URL(fileURLWithPath: "/tmp/store.sqlite"))
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    /// Indexes order NULLs first, as the store's sorts do, so that PostgreSQL reads a sorted limit from them.
    @Test func indexesPutNullsFirstAsSortsDo() {
        let schema = SQLSchema(model: TestModel.make(), configurationName: nil, numbers: [:])
        let indexes = PostgresSchema.creationStatements(schema).filter { $0.hasPrefix("CREATE INDEX") }
        let tableIndexes = indexes.filter { !$0.contains("\"Z_") || $0.contains("ZSESSION") }
        #expect(!tableIndexes.isEmpty)
        #expect(tableIndexes.allSatisfy { $0.contains("NULLS FIRST") || $0.contains("NULLS LAST") })
        #expect(
            SQLSchema(model: TestModel.make(), configurationName: nil, numbers: [:])
                .indexStatements(for: schema.heldTables[0]).allSatisfy { !$0.contains("NULLS") })
    }

    @Test func numbersPlaceholdersOutsideQuotes() {
        #expect(
            PostgresSession.numbered("SELECT \"a?\" FROM t WHERE x = ? AND y = '?' AND z IN (?, ?)")
                == "SELECT \"a?\" FROM t WHERE x = $1 AND y = '?' AND z IN ($2, $3)")
        #expect(PostgresSession.numbered("SELECT 1") == "SELECT 1")
        // Non-ASCII text around placeholders and inside literals is kept as it is.
        #expect(
            PostgresSession.numbered("SELECT 'né?e', \"Zü?\" FROM t WHERE café = ? AND 🐈 IN (?, '?')")
                == "SELECT 'né?e', \"Zü?\" FROM t WHERE café = $1 AND 🐈 IN ($2, '?')")
    }

    @Test func translatesWildcardsToLikePatterns() {
        #expect(PostgresDialect.likePattern("a*b?c") == "a%b_c")
        #expect(PostgresDialect.likePattern("100%_\\*") == "100\\%\\_*")
    }
}

@Suite("PostgreSQL store", needsPostgres)
struct PostgresStoreTests {
    /// A coordinator on the schema `name` of the test server, for a model (the test model by default).
    static func coordinator(
        _ name: String, in folder: TemporaryFolder, model: ManagedObjectModel = TestModel.make(),
        options: PersistentStoreOptions = [:]
    ) throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            type: .postgres, at: StoreKind.postgres.url(name, in: folder),
            options: options)
        return coordinator
    }

    @Test func aSaveOfOneCoordinatorIsReadByAnotherOnTheSameSchema() throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let writer = try Self.coordinator("shared", in: folder)
        let reader = try Self.coordinator("shared", in: folder)
        let readerStore = try #require(reader.persistentStores.first)
        #expect(writer.persistentStores.first?.identifier == readerStore.identifier)
        let before = try readerStore.contentToken()
        let context = ManagedObjectContext(coordinator: writer)
        context.makeSession("g1", title: "Keynote")
        try context.save()
        let sessions = try ManagedObjectContext(coordinator: reader).all("Session")
        #expect(sessions.map { $0.value(forKey: "title") as? String } == ["Keynote"])
        #expect(try readerStore.contentToken() != before)
    }

    @Test func aStaleSaveFromAnotherCoordinatorIsAMergeConflictThatChangesNothing() throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let first = try Self.coordinator("conflict", in: folder)
        let second = try Self.coordinator("conflict", in: folder)
        let seed = ManagedObjectContext(coordinator: first)
        seed.makeSession("g1", title: "Original")
        try seed.save()
        let myContext = ManagedObjectContext(coordinator: first)
        let theirContext = ManagedObjectContext(coordinator: second)
        let mine = try #require(try myContext.all("Session").first)
        let theirs = try #require(try theirContext.all("Session").first)
        _ = mine.value(forKey: "title")
        _ = theirs.value(forKey: "title")
        theirs.setValue("Theirs", forKey: "title")
        try theirContext.save()
        mine.setValue("Mine", forKey: "title")
        #expect(throws: StoreError(code: .mergeConflict, message: "")) { try myContext.save() }
        let stored = try ManagedObjectContext(coordinator: second).all("Session")
        #expect(stored.map { $0.value(forKey: "title") as? String } == ["Theirs"])
    }

    @Test func coordinatorsInsertingAtOnceGetDistinctKeys() async throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        let coordinators = try (0..<4).map { _ in try Self.coordinator("keys", in: folder) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, coordinator) in coordinators.enumerated() {
                group.addTask {
                    for batch in 0..<5 {
                        let context = ManagedObjectContext(coordinator: coordinator)
                        for item in 0..<10 { context.makeSession("c\(index)-\(batch)-\(item)") }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = try ManagedObjectContext(coordinator: coordinators[0]).all("Session")
        #expect(all.count == 200)
        #expect(Set(all.map(\.objectID)).count == 200)
    }

    @Test func lightweightMigrationAddsTheColumnsOfANewAttribute() throws {
        _ = try postgresServer()
        let folder = TemporaryFolder()
        func model(withRating: Bool) -> ManagedObjectModel {
            var properties: [PropertyDescription] = [AttributeDescription(name: "text", type: .string)]
            if withRating { properties.append(AttributeDescription(name: "rating", type: .integer32)) }
            return ManagedObjectModel(entities: [EntityDescription(name: "Note", properties: properties)])
        }
        let old = try Self.coordinator("migrated", in: folder, model: model(withRating: false))
        let context = ManagedObjectContext(coordinator: old)
        context.insertNewObject(forEntityName: "Note").setValue("kept", forKey: "text")
        try context.save()
        for store in old.persistentStores { try old.remove(store) }

        // Without the options the changed model is refused.
        #expect(throws: StoreError.self) {
            try Self.coordinator("migrated", in: folder, model: model(withRating: true))
        }
        let migrated = try Self.coordinator(
            "migrated", in: folder, model: model(withRating: true),
            options: [.migratePersistentStoresAutomatically: true, .inferMappingModelAutomatically: true])
        let reader = ManagedObjectContext(coordinator: migrated)
        let note = try #require(try reader.all("Note").first)
        #expect(note.value(forKey: "text") as? String == "kept")
        note.setValue(5, forKey: "rating")
        try reader.save()
        let again = try #require(try ManagedObjectContext(coordinator: migrated).all("Note").first)
        #expect(again.value(forKey: "rating") as? Int == 5)
    }

    @Test func anUnreachableServerIsUnavailableAndAddsNoStore() throws {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: TestModel.make())
        let url = URL(string: "postgres:///postgres?host=/nonexistent-almanac-socket&schema=nothing")!
        #expect(throws: StoreError(code: .unavailable, message: "")) {
            try coordinator.addPersistentStore(type: .postgres, at: url)
        }
        #expect(coordinator.persistentStores.isEmpty)
    }
}
