import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// Files Core Data made carry triggers and indexes that call Core Data's own SQL functions and collations; saving
/// to them works here too.
@Suite("SQLite store: Core Data's SQL functions in a file's schema")
struct CoreDataSchemaFunctionTests {
    static func model() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                properties: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "search", type: .string),
                    AttributeDescription(name: "updated", type: .date),
                ])
        ])
    }

    /// A store whose file has triggers and an index as Core Data writes them for derived attributes (`canonical:`
    /// of the title, `now()` on each change) and a case-insensitive index.
    static func store(at url: URL) throws -> ManagedObjectContext {
        SQLiteStore.register()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            try coordinator.remove(store)
        }
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute(
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZNOTE_Note_search_INSERT AFTER INSERT ON ZNOTE FOR EACH ROW BEGIN "
                + "UPDATE ZNOTE SET ZSEARCH = NSCoreDataCanonical(NEW.ZTITLE) WHERE Z_PK = NEW.Z_PK; "
                + "SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZNOTE', Z_ENT, Z_PK, 'search', ZSEARCH) "
                + "FROM ZNOTE WHERE Z_PK = NEW.Z_PK; END")
        try connection.execute(
            "CREATE TRIGGER IF NOT EXISTS Z_DA_ZNOTE_Note_updated_UPDATE AFTER UPDATE OF Z_OPT ON ZNOTE FOR EACH ROW "
                + "BEGIN UPDATE ZNOTE SET ZUPDATED = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; "
                + "SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZNOTE', Z_ENT, Z_PK, 'updated', ZUPDATED) "
                + "FROM ZNOTE WHERE Z_PK = NEW.Z_PK; END")
        try connection.execute("CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE NSCollateNoCase)")
        connection.close()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        return ManagedObjectContext(coordinator: coordinator)
    }

    @Test func savesRunCoreDatasTriggersAndIndexes() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try Self.store(at: url)
        for title in ["Élan Vital", "item 10", "Item 2"] {
            context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
        }
        try context.save()
        #expect(
            try rawRows(url, "SELECT ZSEARCH FROM ZNOTE ORDER BY ZSEARCH") == ["elan vital", "item 10", "item 2"])

        let before = Date().timeIntervalSinceReferenceDate
        let request = FetchRequest(entityName: "Note")
        request.predicate = try ObjectPredicate(format: "title == %@", "Élan Vital")
        let note = try #require(try context.fetch(request).first)
        note.setValue("Élan", forKey: "title")
        try context.save()
        let row = try rawRows(url, "SELECT ZUPDATED FROM ZNOTE WHERE ZTITLE = 'Élan'").first
        let updated = try #require(row.flatMap(Double.init))
        #expect(updated >= before - 1 && updated <= Date().timeIntervalSinceReferenceDate + 1)

        // The collations order as Core Data's do.
        #expect(
            try rawRows(
                url,
                "SELECT ZTITLE FROM ZNOTE WHERE ZTITLE LIKE 'item%' ORDER BY ZTITLE COLLATE NSCollateNumericallyNoCase")
                == ["Item 2", "item 10"])
        #expect(try rawRows(url, "SELECT COUNT(*) FROM ZNOTE WHERE ZTITLE = 'ITEM 2' COLLATE NSCollateNoCase") == ["1"])
    }

    @Test func theOtherCollationsOrderAsTheirNamesSay() throws {
        let folder = TemporaryFolder()
        let url = folder.file("notes.sqlite")
        let context = try Self.store(at: url)
        for title in ["b", "File 10", "a", "file 9", "B"] {
            context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
        }
        try context.save()
        func order(_ collation: String) throws -> [String] {
            try rawRows(url, "SELECT ZTITLE FROM ZNOTE ORDER BY ZTITLE COLLATE \(collation), ZTITLE")
        }
        #expect(try order("NSCollateFinderlike") == ["a", "b", "B", "file 9", "File 10"])
        #expect(try order("NSCollateLocaleSensitiveNoCase") == ["a", "B", "b", "File 10", "file 9"])
        #expect(
            try order("NSCollateLocaleSensitive").firstIndex(of: "File 10")! < order("NSCollateLocaleSensitive")
                .firstIndex(of: "file 9")!)
    }
}
