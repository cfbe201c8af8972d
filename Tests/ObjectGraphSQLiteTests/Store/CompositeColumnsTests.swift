import Foundation
import ObjectGraph
import Testing

@testable import ObjectGraphSQLite
@testable import ObjectGraphTestSupport

/// How the SQLite store lays out composite attributes: a column per element, queried, sorted and indexed in SQL.
@Suite("SQLite store: composite attributes")
struct CompositeColumnsTests {
    /// A SQLite store at `url` holding the three quakes, saved, with its coordinator.
    @discardableResult
    static func savedQuakes(at url: URL, model: ManagedObjectModel = QuakeModel.model()) throws -> (
        coordinator: PersistentStoreCoordinator, store: PersistentStore
    ) {
        SQLiteStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        QuakeModel.insertQuakes(into: context)
        try context.save()
        return (coordinator, store)
    }

    @Test func eachElementHasAColumnThatSQLFiltersAndSorts() throws {
        let folder = TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let model = QuakeModel.model()
        let quake = try #require(model.entitiesByName["Quake"])
        quake.indexes = [FetchIndexDescription(name: "byRichter", propertyNames: ["magnitude.richter"])]
        let (coordinator, store) = try Self.savedQuakes(at: url, model: model)

        #expect(
            try rawRows(
                url,
                "SELECT ZCODE, ZMAGNITUDE_RICHTER, ZMAGNITUDE_SCALE, ZLOCATION_COORDINATE_LATITUDE, ZLOCATION_DEPTH "
                    + "FROM ZQUAKE ORDER BY ZCODE") == [
                    "a|4.6|ML|47.37|10", "b|6.1|Mw|NULL|NULL", "c|NULL|NULL|NULL|NULL",
                ])
        #expect(
            try rawRows(url, "SELECT sql FROM sqlite_master WHERE name = 'Z_Quake_byRichter'")
                == [#"CREATE INDEX "Z_Quake_byRichter" ON "ZQUAKE" ("ZMAGNITUDE_RICHTER")"#])

        let log = try StatementLog(store)
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "magnitude.richter > 4 AND location.coordinate.latitude == nil")
        request.sortKeys = [SortKey("magnitude.scale", ascending: false)]
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(request).map { $0.value(forKey: "code") as? String } == ["b"])
        // The filter and the order are SQL's: no row is read to be dropped in memory.
        let select = try #require(log.statements.first { $0.contains("FROM \"ZQUAKE\"") || $0.contains("FROM ZQUAKE") })
        #expect(select.contains("\"ZMAGNITUDE_RICHTER\" >"))
        #expect(select.contains("\"ZLOCATION_COORDINATE_LATITUDE\" IS NULL"))
        #expect(select.contains("ORDER BY") && select.contains("\"ZMAGNITUDE_SCALE\" DESC"))
    }
}

extension CompositeColumnsTests {
    @Test func aStoreGivesBackItsCompositesWithoutTheModel() throws {
        let folder = TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        try Self.savedQuakes(at: url)

        let read = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(read.entityVersionHashesByName == QuakeModel.model().entityVersionHashesByName)
        let location = try #require(
            read.entitiesByName["Quake"]?.attributesByName["location"] as? CompositeAttributeDescription)
        #expect(
            location.leafElements.map(\.path) == [["coordinate", "latitude"], ["coordinate", "longitude"], ["depth"]])
        #expect(location.leafElements.map(\.attribute.attributeType) == [.double, .double, .integer32])

        let reader = PersistentStoreCoordinator(managedObjectModel: read)
        try reader.addPersistentStore(type: .sqlite, at: url, options: [.readOnly: true])
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "location.coordinate.longitude < 10")
        let found = try ManagedObjectContext(coordinator: reader).fetch(request)
        #expect(found.map { $0.value(forKey: "code") as? String } == ["a"])
        #expect(found.first?.value(forKeyPath: "magnitude.recordedAt") as? Date == QuakeModel.recorded)
    }
}

extension CompositeColumnsTests {
    /// A file that names element columns its own way (another Core Data's naming; none was at hand): the store
    /// takes the one unclaimed column that fits, reads and filters through it.
    @Test func elementColumnsNamedOtherwiseAreFound() throws {
        let folder = TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        try Self.savedQuakes(at: url)
        do {
            let connection = try SQLiteConnection(path: url.path)
            try connection.execute("ALTER TABLE ZQUAKE RENAME COLUMN ZMAGNITUDE_RICHTER TO ZMAGNITUDERICHTER")
            try connection.execute("ALTER TABLE ZQUAKE RENAME COLUMN ZLOCATION_DEPTH TO ZDEPTH")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: QuakeModel.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [.readOnly: true])
        let request = FetchRequest(entityName: "Quake")
        request.predicate = try ObjectPredicate(format: "magnitude.richter > 4.5 AND location.depth == 10")
        let found = try ManagedObjectContext(coordinator: coordinator).fetch(request)
        #expect(found.map { $0.value(forKey: "code") as? String } == ["a"])
        #expect(found.first?.value(forKeyPath: "magnitude.richter") as? Double == 4.6)
        #expect(found.first?.value(forKeyPath: "location.coordinate.latitude") as? Double == 47.37)
    }
}

extension CompositeColumnsTests {
    /// A store's own model cache keeps its uniqueness constraints, configurations and version identifiers.
    @Test func aStoreGivesBackItsConstraintsConfigurationsAndVersion() throws {
        SQLiteStore.register()
        let folder = TemporaryFolder()
        let url = folder.file("quakes.sqlite")
        let model = QuakeModel.model()
        let quake = try #require(model.entitiesByName["Quake"])
        quake.uniquenessConstraints = [["code"], ["magnitude.scale", "magnitude.recordedAt"]]
        model.setEntities([quake], forConfigurationName: "Catalog")
        model.versionIdentifiers = ["3", "3.1"]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)

        let read = try ManagedObjectModel(contentsOfStoreAt: url)
        #expect(
            read.entitiesByName["Quake"]?.uniquenessConstraints == [
                ["code"], ["magnitude.scale", "magnitude.recordedAt"],
            ])
        #expect(read.configurations == ["Catalog"])
        #expect(read.entities(forConfigurationName: "Catalog")?.map(\.name) == ["Quake"])
        #expect(read.versionIdentifiers == ["3", "3.1"])
    }
}
