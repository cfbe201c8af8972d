import CSQLite
import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test func newStoreHasCoreDataLayout() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("g1", start: Date(timeIntervalSinceReferenceDate: 12.5))
        let person = context.insertNewObject(forEntityName: "Person")
        session.setValue([person], forKey: "persons")
        try context.save()
        let url = try #require(store.url)
        let tables = try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(tables.contains("Z_PRIMARYKEY") && tables.contains("Z_METADATA") && tables.contains("ZSESSION"))
        #expect(!tables.contains("ZWORKSHOP"))
        #expect(tables.contains { $0.hasPrefix("Z_") && $0.hasSuffix("PERSONS") })
        #expect(try rawRows(url, "SELECT Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_NAME = 'Workshop'").count == 1)
        #expect(try rawRows(url, "SELECT ZSTART, Z_OPT FROM ZSESSION") == ["12.5|1"])
        #expect(try rawRows(url, "SELECT Z_UUID FROM Z_METADATA") == [store.identifier])
        let plist = try #require(try Self.metadataPlist(url))
        let decoded = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        #expect((decoded["NSStoreModelVersionHashes"] as? [String: Any])?["Session"] != nil)
        #expect(plist.starts(with: Array("bplist00".utf8)))
    }

    static func metadataPlist(_ url: URL) throws -> Data? {
        var configuration = SQLiteConnection.Configuration()
        configuration.mode = .readOnly
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        let statement = try connection.makeStatement("SELECT Z_PLIST FROM Z_METADATA")
        return try statement.step() == .row ? statement.data(at: 0) : nil
    }

    @Test func updateWithStaleVersionIsAMergeConflictAndChangesNothing() throws {
        let fixture = Fixture(.sqlite)
        try fixture.addStore()
        let first = fixture.context()
        let a = first.makeSession("a", title: "A0")
        let b = first.makeSession("b", title: "B0")
        try first.save()
        let second = fixture.context()
        let staleA = try second.existingObject(with: a.objectID)
        let staleB = try second.existingObject(with: b.objectID)
        a.setValue("A1", forKey: "title")
        first.delete(b)
        try first.save()
        staleA.setValue("A2", forKey: "title")
        staleB.setValue("B2", forKey: "title")
        second.makeSession("c")
        let error = try #require(throws: StoreError.self) { try second.save() }
        #expect(error.code == .mergeConflict)
        #expect(Set(error.objectIDs) == [a.objectID, b.objectID])
        let titles = try fixture.context().all("Session", sortedBy: "guid").map { $0.value(forKey: "title") as? String }
        #expect(titles == ["A1"])
        second.mergePolicy = .rollback
        try second.save()
        #expect(try fixture.context().all("Session", sortedBy: "guid").map { $0.value(forKey: "guid") as? String }
            == ["a", "c"])
    }

    @Test func keysComeFromZ_MAXAndSurviveReopening() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore()
        let keys = try store.newReferenceKeys(forEntityName: "Workshop", count: 3)
        #expect(keys == [1, 2, 3])
        let url = try #require(store.url)
        try fixture.coordinator.remove(store)
        let again = try fixture.addStore()
        #expect(try again.newReferenceKeys(forEntityName: "Session", count: 1) == [4])
        #expect(try rawRows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Session'") == ["4"])
    }

    @Test func orderedManyToManyKeepsItsOrder() throws {
        let fixture = Fixture(.sqlite)
        try fixture.addStore()
        let context = fixture.context()
        let session = context.makeSession("s")
        let people = (0..<4).map { index -> ManagedObject in
            let person = context.insertNewObject(forEntityName: "Person")
            person.setValue("p\(index)", forKey: "name")
            return person
        }
        session.setValue([people[2], people[0], people[3]], forKey: "persons")
        try context.save()
        session.setValue([people[3], people[1], people[2]], forKey: "persons")
        let expected = session.objects(forKey: "persons").map { $0.value(forKey: "name") as? String }
        try context.save()
        let reader = fixture.context()
        let fetched = try reader.all("Session")[0].objects(forKey: "persons")
        #expect(fetched.map { $0.value(forKey: "name") as? String } == expected)
        #expect(Set(expected) == ["p3", "p1", "p2"])
        let request = FetchRequest(entityName: "Session")
        request.predicate = try ObjectPredicate(format: "ANY persons.name == 'p1' AND persons.@count == 3")
        #expect(try fixture.context().fetch(request).count == 1)
    }

    @Test(arguments: [Data("hello, not a database".utf8), Data("SQLite format 3\0".utf8) + Data(repeating: 0xAB, count: 4000)])
    func foreignAndCorruptFilesAreRefusedUntouched(contents: Data) throws {
        let fixture = Fixture(.sqlite)
        let url = fixture.folder.file("store.sqlite")
        try contents.write(to: url)
        let error = try #require(throws: StoreError.self) { try fixture.addStore() }
        #expect(error.code == .foreignFile || error.code == .corruptFile)
        #expect(try Data(contentsOf: url) == contents)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func otherSQLiteDatabasesAreForeign() throws {
        let fixture = Fixture(.sqlite)
        let url = fixture.folder.file("store.sqlite")
        var configuration = SQLiteConnection.Configuration()
        configuration.journalMode = .delete
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        connection.close()
        let before = try Data(contentsOf: url)
        #expect(throws: StoreError(code: .foreignFile, message: "")) { try fixture.addStore() }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func optionsSetSynchronousAndReadOnly() throws {
        let fixture = Fixture(.sqlite)
        let store = try fixture.addStore(options: [.sqliteSynchronousFull: true, .sqliteBusyTimeout: 1.5])
        let connection = try #require((store as? SQLiteStore)?.connection)
        let statement = try connection.makeStatement("PRAGMA synchronous")
        _ = try statement.step()
        #expect(statement.int64(at: 0) == 2)
        try fixture.coordinator.remove(store)
        let readOnly = try fixture.addStore(options: [.readOnly: true])
        #expect(readOnly.isReadOnly)
        let context = fixture.context()
        context.makeSession("x")
        #expect(throws: StoreError(code: .noStoreForEntity, message: "")) { try context.save() }
    }

    @Test func transformableValuesAndAllTypesRoundTrip() throws {
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Thing", properties: [
            AttributeDescription(name: "i16", type: .integer16), AttributeDescription(name: "f", type: .float),
            AttributeDescription(name: "dec", type: .decimal), AttributeDescription(name: "flag", type: .boolean),
            AttributeDescription(name: "blob", type: .binaryData), AttributeDescription(name: "uuid", type: .uuid),
            AttributeDescription(name: "uri", type: .uri), AttributeDescription(name: "list", type: .transformable),
            AttributeDescription(name: "text", type: .string),
        ])])
        SQLiteStore.register()
        let folder = TemporaryFolder()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.file("t.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        let thing = context.insertNewObject(forEntityName: "Thing")
        let uuid = UUID()
        let values: [String: Any] = [
            "i16": 7, "f": Float(1.5), "dec": Decimal(string: "12345678901234567890.123")!, "flag": true,
            "blob": Data([0, 1, 2]), "uuid": uuid, "uri": URL(string: "https://example.com/x?y=1")!,
            "list": ["a", "b"], "text": "e\u{301}a\0b",
        ]
        for (key, value) in values { thing.setValue(value, forKey: key) }
        try context.save()
        let read = try #require(try ManagedObjectContext(coordinator: coordinator).all("Thing").first)
        #expect(read.value(forKey: "i16") as? Int == 7)
        #expect(read.value(forKey: "f") as? Float == 1.5)
        #expect(read.value(forKey: "dec") as? Decimal == Decimal(string: "12345678901234567890.123"))
        #expect(read.value(forKey: "flag") as? Bool == true)
        #expect(read.value(forKey: "blob") as? Data == Data([0, 1, 2]))
        #expect(read.value(forKey: "uuid") as? UUID == uuid)
        #expect(read.value(forKey: "uri") as? URL == URL(string: "https://example.com/x?y=1"))
        #expect(read.value(forKey: "list") as? [String] == ["a", "b"])
        #expect(read.value(forKey: "text") as? String == "e\u{301}a\0b")
    }

    /// A compiled query serves every limit of its shape (the limit is a bound parameter): a fetch with another limit
    /// or offset after it returns its own page, not the first fetch's.
    @Test func fetchesOfOneShapeWithDifferentLimitsEachGetTheirOwnPage() throws {
        let fixture = Fixture(.sqlite)
        try fixture.addStore()
        let writer = fixture.context()
        for index in 0..<30 {
            let start = Date(timeIntervalSinceReferenceDate: Double(index))
            writer.makeSession(String(format: "g%02d", index), start: start)
        }
        try writer.save()
        let context = fixture.context()
        for (offset, limit) in [(0, 10), (0, 3), (5, 10), (28, 10), (0, 0), (12, 1)] {
            let request = FetchRequest(entityName: "Session")
            request.sortKeys = [SortKey("start")]
            request.fetchOffset = offset
            request.fetchLimit = limit
            let guids = try context.fetch(request).map { $0.value(forKey: "guid") as? String }
            let end = limit == 0 ? 30 : min(30, offset + limit)
            #expect(guids == (offset..<end).map { String(format: "g%02d", $0) }, "offset \(offset), limit \(limit)")
        }
    }
}


